# TILEPERF_WERROR: compiler warnings are errors in tileperf's own sources
# (the command, its libraries, its tests and fuzz targets), and only there:
# a project that uses tileperf, and the packages tileperf builds against,
# keep their own flags. The CI entry point turns it on (.ci/run, through
# tools/run); a developer's build keeps warnings as warnings.
#
# Usage:
#   tileperf_warnings_as_errors(<dir>...)
# Parameters:
#   dir  source folders of this project whose C and C++ targets (and those of
#        their subfolders) get -Werror when TILEPERF_WERROR is on
function(tileperf_warnings_as_errors)
  if(NOT TILEPERF_WERROR)
    return()
  endif()
  foreach(dir IN LISTS ARGN)
    get_property(targets DIRECTORY "${dir}" PROPERTY BUILDSYSTEM_TARGETS)
    foreach(target IN LISTS targets)
      get_target_property(type ${target} TYPE)
      if(type MATCHES "^(EXECUTABLE|STATIC_LIBRARY|SHARED_LIBRARY|MODULE_LIBRARY|OBJECT_LIBRARY)$")
        target_compile_options(${target} PRIVATE -Werror)
      endif()
    endforeach()
    get_property(subdirs DIRECTORY "${dir}" PROPERTY SUBDIRECTORIES)
    if(subdirs)
      tileperf_warnings_as_errors(${subdirs})
    endif()
  endforeach()
endfunction()
