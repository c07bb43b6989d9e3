"""TileGym's model-specific kernels (Qwen3.5, OLMo3, OLMoE, LFM2-MoE), one configuration per workload its kernel inventory declares.

The shapes are TileGym's own: each Definition/Workload pair of
``tilegym/transformers/*/kernel_definitions`` and ``kernel_workloads`` with
a cuTile Solution becomes a configuration that calls the Solution's entry
point with fake tensors of the workload's axes.
"""
from pathlib import Path

import tilegym.transformers

from tileperf_dump import inventory_configs

CONFIGS = inventory_configs(Path(tilegym.transformers.__path__[0]))
