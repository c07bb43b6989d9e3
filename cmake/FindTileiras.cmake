# FindTileiras
# ------------
# Finds tileiras, the TileIR optimizing assembler (bytecode -> cubin).
#
# Search order: the nvidia/cu13/bin folder of the PyPI wheel
# nvidia-cuda-tileiras in CudaTile_PYTHON's (or TILEPERF_PYTHON's)
# site-packages, PATH, $CUDA_HOME/bin. Set Tileiras_EXECUTABLE to override.
# Result variables: Tileiras_FOUND, Tileiras_EXECUTABLE. Its release and
# architectures are asked once per run by the test `toolchain.probe`
# (`tileperf toolchain`), the one place that reads the tools' banners.
include(FindPackageHandleStandardArgs)
include(TileperfToolHints)

_tileperf_find_tool(Tileiras_EXECUTABLE tileiras "tileiras executable")


find_package_handle_standard_args(Tileiras
  REQUIRED_VARS Tileiras_EXECUTABLE
  REASON_FAILURE_MESSAGE
    "pip install nvidia-cuda-tileiras, nvidia-cuda-nvcc and nvidia-nvvm of one release (the versions of tileperf's requirements.txt) into TILEPERF_PYTHON's environment")
