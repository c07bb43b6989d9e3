# FindCudaTile
# ------------
# Finds a Python interpreter that can import cuTile (`cuda.tile`) and pytest,
# which the dump step needs to export kernels to TileIR bytecode.
#
# Input (cache):
#   TILEPERF_PYTHON   interpreter to use. Default: .venv/bin/python under the
#                     top-level source folder if present, else python3 on PATH.
# Result variables:
#   CudaTile_FOUND, CudaTile_PYTHON, CudaTile_VERSION, CudaTile_PYTEST_VERSION
include(FindPackageHandleStandardArgs)

if(NOT TILEPERF_PYTHON)
  if(EXISTS "${CMAKE_SOURCE_DIR}/.venv/bin/python")
    set(_tileperf_default_python "${CMAKE_SOURCE_DIR}/.venv/bin/python")
  else()
    find_program(_tileperf_default_python NAMES python3 python)
  endif()
  set(TILEPERF_PYTHON "${_tileperf_default_python}" CACHE FILEPATH
    "Python interpreter with cuda-tile and pytest installed")
endif()

set(CudaTile_PYTHON "${TILEPERF_PYTHON}")
set(CudaTile_VERSION "")
set(CudaTile_PYTEST_VERSION "")
if(CudaTile_PYTHON)
  execute_process(COMMAND "${CudaTile_PYTHON}" -c "import cuda.tile as ct; print(ct.__version__)"
    OUTPUT_VARIABLE CudaTile_VERSION OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  execute_process(COMMAND "${CudaTile_PYTHON}" -c "import pytest; print(pytest.__version__)"
    OUTPUT_VARIABLE CudaTile_PYTEST_VERSION OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
endif()

if(NOT CudaTile_VERSION)
  set(_tileperf_reason "${CudaTile_PYTHON} cannot import cuda.tile: install it with `${CudaTile_PYTHON} -m pip install cuda-tile==1.7.0` (or run tools/run check, which sets up .venv)")
elseif(NOT CudaTile_PYTEST_VERSION)
  set(_tileperf_reason "${CudaTile_PYTHON} cannot import pytest: install it with `${CudaTile_PYTHON} -m pip install pytest`")
endif()

find_package_handle_standard_args(CudaTile
  REQUIRED_VARS CudaTile_PYTHON CudaTile_VERSION CudaTile_PYTEST_VERSION
  VERSION_VAR CudaTile_VERSION
  REASON_FAILURE_MESSAGE "${_tileperf_reason}")
