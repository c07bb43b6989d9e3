"""What the configuration files share: FlashInfer's launchers called with its
autotuning off, and the trips of its persistent GEMMs."""
import contextlib

from tileperf_dump import Problem, cdiv


@contextlib.contextmanager
def no_autotune(module):
    """The launcher of `module` takes FlashInfer's default configuration, as
    FLASHINFER_CUTILE_AUTOTUNE_DISABLED=1 makes it (read at import time)."""
    saved = module._AUTOTUNE_DISABLED
    module._AUTOTUNE_DISABLED = True
    try:
        yield
    finally:
        module._AUTOTUNE_DISABLED = saved


def persistent_trips(rows, n, k, block="BLOCK_{}", k_loop="k"):
    """The problem of a persistent GEMM over rows x n tiles: each program
    takes its share of the tiles (its `current_pid` loop), each tile the K
    loop; the tile sizes are the launch's constants BLOCK_M, BLOCK_N and
    BLOCK_K (or as `block` names them)."""
    def problem(target):
        c, grid = target.launch.constants, target.launch.grid[0]
        tiles = cdiv(rows, c[block.format("M")]) * cdiv(n, c[block.format("N")])
        return Problem(trips={"current_pid": cdiv(tiles, grid), k_loop: cdiv(k, c[block.format("K")])})
    return problem
