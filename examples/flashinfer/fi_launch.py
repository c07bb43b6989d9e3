"""What the configuration files share: FlashInfer's launchers called with its
autotuning off, and each program's share of the tiles of a persistent GEMM
whose tile count comes from memory."""
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


def tile_share(rows, n, block="BLOCK_{}"):
    """The problem of a persistent GEMM over rows x n tiles whose kernel
    reads its tile count from memory (the experts' rows of a masked or
    ragged batch): each program's share of the tiles, its `current_pid`
    loop, with the launch's tile sizes BLOCK_M and BLOCK_N (or as `block`
    names them). The K loop and every other count the check computes."""
    def problem(target):
        c, grid = target.launch.constants, target.launch.grid[0]
        tiles = cdiv(rows, c[block.format("M")]) * cdiv(n, c[block.format("N")])
        return Problem(trips={"current_pid": cdiv(tiles, grid)})
    return problem
