# Shared by the Find modules: where the PyPI wheels of the CUDA tools put
# their executables (site-packages/nvidia/cu13/bin) for a given interpreter.
include_guard(GLOBAL)

# _tileperf_wheel_bin_dir(<out-var> <python>)
#   Sets <out-var> to the wheels' bin folder, or to "" when <python> has none.
function(_tileperf_wheel_bin_dir out python)
  set(dir "")
  if(python)
    execute_process(
      COMMAND "${python}" -c
        "import os, nvidia.cu13 as m; print(os.path.join(list(m.__path__)[0], 'bin'))"
      OUTPUT_VARIABLE dir OUTPUT_STRIP_TRAILING_WHITESPACE
      ERROR_QUIET RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      set(dir "")
    endif()
  endif()
  set(${out} "${dir}" PARENT_SCOPE)
endfunction()

# _tileperf_find_tool(<var> <name> <doc>)
#   find_program for a CUDA tool: the wheels' bin folder of TILEPERF_PYTHON
#   (or CudaTile_PYTHON) first, then PATH, then $CUDA_HOME/bin.
macro(_tileperf_find_tool var name doc)
  if(CudaTile_PYTHON)
    _tileperf_wheel_bin_dir(_tileperf_wheel_bin "${CudaTile_PYTHON}")
  else()
    _tileperf_wheel_bin_dir(_tileperf_wheel_bin "${TILEPERF_PYTHON}")
  endif()
  find_program(${var} NAMES ${name} HINTS "${_tileperf_wheel_bin}" "$ENV{CUDA_HOME}/bin" DOC "${doc}")
endmacro()
