# tileperf_perf_tests_after(<test>): every perf test of the kernels registered
# so far, and compile.batch, runs after <test> when a ctest run selects both
# (DEPENDS). A test's properties can be set at configure time only in the
# folder that added it, so the order is set as ctest reads this folder's tests
# (TEST_INCLUDE_FILES), after those of the kernels' folder.
function(tileperf_perf_tests_after first)
  get_property(kernels GLOBAL PROPERTY TILEPERF_KERNELS)
  set(tests "")
  foreach(kernel IN LISTS kernels)
    get_property(kernel_tests GLOBAL PROPERTY TILEPERF_KERNEL_TESTS_${kernel})
    list(APPEND tests ${kernel_tests})
  endforeach()
  get_property(compile_batch GLOBAL PROPERTY TILEPERF_COMPILE_BATCH_DIR)
  if(compile_batch)
    list(APPEND tests compile.batch)
  endif()
  list(JOIN tests "]=] [=[" names)
  set(file "${CMAKE_CURRENT_BINARY_DIR}/perf-tests-after.cmake")
  file(CONFIGURE OUTPUT "${file}" CONTENT
    "set_tests_properties([=[${names}]=] PROPERTIES DEPENDS [=[${first}]=])\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${file}")
endfunction()
