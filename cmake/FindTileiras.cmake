# FindTileiras
# ------------
# Finds tileiras, the TileIR optimizing assembler (bytecode -> cubin).
#
# Search order: the nvidia/cu13/bin folder of the PyPI wheel
# nvidia-cuda-tileiras in CudaTile_PYTHON's (or TILEPERF_PYTHON's)
# site-packages, PATH, $CUDA_HOME/bin. Set Tileiras_EXECUTABLE to override.
# Result variables:
#   Tileiras_FOUND, Tileiras_EXECUTABLE, Tileiras_VERSION ("13.4.92"),
#   Tileiras_ARCHITECTURES (the --gpu-name values it accepts)
include(FindPackageHandleStandardArgs)
include(TileperfToolHints)

_tileperf_find_tool(Tileiras_EXECUTABLE tileiras "tileiras executable")

set(Tileiras_VERSION "")
set(Tileiras_ARCHITECTURES "")
if(Tileiras_EXECUTABLE)
  _tileperf_tool_version(Tileiras_VERSION "${Tileiras_EXECUTABLE}")
  execute_process(COMMAND "${Tileiras_EXECUTABLE}" --help OUTPUT_VARIABLE _tileperf_help ERROR_QUIET)
  string(REGEX MATCHALL "=sm_[0-9]+[a-z]?" _tileperf_archs "${_tileperf_help}")
  string(REPLACE "=" "" Tileiras_ARCHITECTURES "${_tileperf_archs}")
endif()

find_package_handle_standard_args(Tileiras
  REQUIRED_VARS Tileiras_EXECUTABLE Tileiras_VERSION
  VERSION_VAR Tileiras_VERSION
  REASON_FAILURE_MESSAGE
    "install it with `pip install nvidia-cuda-tileiras==13.4.92 nvidia-cuda-nvcc==13.4.92 nvidia-nvvm==13.4.92` (same release for all three)")
