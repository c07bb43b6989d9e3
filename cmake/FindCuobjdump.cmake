# FindCuobjdump
# -------------
# Finds cuobjdump and the nvdisasm it runs for --dump-sass.
#
# Search order: the nvidia/cu13/bin folder of the PyPI wheels
# nvidia-cuda-cuobjdump and nvidia-cuda-nvdisasm in CudaTile_PYTHON's
# site-packages, PATH, $CUDA_HOME/bin. tileperf puts cuobjdump's folder first
# on PATH when running it, so nvdisasm must sit beside cuobjdump or on PATH.
# Result variables:
#   Cuobjdump_FOUND, Cuobjdump_EXECUTABLE, Cuobjdump_VERSION,
#   Cuobjdump_NVDISASM, Cuobjdump_NVDISASM_VERSION
include(FindPackageHandleStandardArgs)
include(TileperfToolHints)

_tileperf_find_tool(Cuobjdump_EXECUTABLE cuobjdump "cuobjdump executable")

set(Cuobjdump_VERSION "")
set(Cuobjdump_NVDISASM_VERSION "")
if(Cuobjdump_EXECUTABLE)
  _tileperf_tool_version(Cuobjdump_VERSION "${Cuobjdump_EXECUTABLE}")
  get_filename_component(_tileperf_cuobjdump_dir "${Cuobjdump_EXECUTABLE}" DIRECTORY)
  find_program(Cuobjdump_NVDISASM NAMES nvdisasm HINTS "${_tileperf_cuobjdump_dir}"
    DOC "nvdisasm used by cuobjdump --dump-sass")
  if(Cuobjdump_NVDISASM)
    _tileperf_tool_version(Cuobjdump_NVDISASM_VERSION "${Cuobjdump_NVDISASM}")
  endif()
endif()

find_package_handle_standard_args(Cuobjdump
  REQUIRED_VARS Cuobjdump_EXECUTABLE Cuobjdump_VERSION Cuobjdump_NVDISASM
  VERSION_VAR Cuobjdump_VERSION
  REASON_FAILURE_MESSAGE
    "install it with `pip install nvidia-cuda-cuobjdump==13.4.92 nvidia-cuda-nvdisasm==13.4.92` (cuobjdump needs nvdisasm for --dump-sass)")
