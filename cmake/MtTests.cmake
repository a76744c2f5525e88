# Test registration helpers. Labels: unit, mpi, slurm, multinode, gpu (CI runs everything but gpu).
include(CTest OPTIONAL)

# Open MPI refuses root without these; tests run as root on CI machines. The engine's learned facts
# (the GEMM backends' speeds, the BLAS's code path) go to a cache of the build's own: tests run
# side by side, and what they measure under each other's load is not what a later experiment
# should start from.
set(MT_TEST_CACHE_ENV "MT_CACHE_DIR=${CMAKE_BINARY_DIR}/test-facts")
set(MT_MPI_TEST_ENV "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1;${MT_TEST_CACHE_ENV}")

# mt_add_doctest(target): registers a doctest binary as one ctest test labelled "unit".
function(mt_add_doctest target)
  add_test(NAME ${target} COMMAND ${target})
  set_tests_properties(${target} PROPERTIES LABELS unit ENVIRONMENT "${MT_TEST_CACHE_ENV}")
endfunction()

# mt_add_script_test(NAME name SCRIPT path LABELS ... [TIMEOUT s] [ARGS ...]): a bash integration test.
# The script gets the build dir and source dir in MT_BUILD_DIR / MT_SOURCE_DIR.
function(mt_add_script_test)
  cmake_parse_arguments(T "" "NAME;SCRIPT;TIMEOUT" "LABELS;ARGS" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 600)
  endif()
  add_test(NAME ${T_NAME} COMMAND bash ${T_SCRIPT} ${T_ARGS})
  set_tests_properties(${T_NAME} PROPERTIES LABELS "${T_LABELS}" TIMEOUT ${T_TIMEOUT}
    ENVIRONMENT "MT_BUILD_DIR=${CMAKE_BINARY_DIR};MT_SOURCE_DIR=${CMAKE_SOURCE_DIR};${MT_MPI_TEST_ENV}")
endfunction()
