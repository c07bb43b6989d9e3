# FindCuobjdump
# -------------
# Finds cuobjdump and the nvdisasm it runs for --dump-sass.
#
# Search order: the nvidia/cu13/bin folder of the PyPI wheels
# nvidia-cuda-cuobjdump and nvidia-cuda-nvdisasm in CudaTile_PYTHON's
# site-packages, PATH, $CUDA_HOME/bin. tileperf puts cuobjdump's folder first
# on PATH when running it, so nvdisasm must sit beside cuobjdump or on PATH.
# Result variables: Cuobjdump_FOUND, Cuobjdump_EXECUTABLE, Cuobjdump_NVDISASM.
# Their releases are asked once per run by the test `toolchain.probe`.
include(FindPackageHandleStandardArgs)
include(TileperfToolHints)

_tileperf_find_tool(Cuobjdump_EXECUTABLE cuobjdump "cuobjdump executable")

if(Cuobjdump_EXECUTABLE)
  get_filename_component(_tileperf_cuobjdump_dir "${Cuobjdump_EXECUTABLE}" DIRECTORY)
  find_program(Cuobjdump_NVDISASM NAMES nvdisasm HINTS "${_tileperf_cuobjdump_dir}"
    DOC "nvdisasm used by cuobjdump --dump-sass")
endif()

find_package_handle_standard_args(Cuobjdump
  REQUIRED_VARS Cuobjdump_EXECUTABLE Cuobjdump_NVDISASM
  REASON_FAILURE_MESSAGE
    "pip install nvidia-cuda-cuobjdump and nvidia-cuda-nvdisasm of one release (the versions of tileperf's requirements.txt) into TILEPERF_PYTHON's environment: cuobjdump needs nvdisasm for --dump-sass")
