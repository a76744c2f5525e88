# LibTorch from the PyTorch wheel in the project's virtual environment (scripts/setup.sh makes it).
# The wheel's CMake package is found through torch.utils.cmake_prefix_path. Its libraries are
# named explicitly: if another LibTorch is installed system-wide (Debian's libtorch-dev),
# find_package(Torch) would otherwise pick that one's libtorch.so/libc10.so and the program would
# abort at start-up. Sets MT_TORCH_DIR (the wheel's torch/ folder) and MT_TORCH_VERSION.
set(MT_PYTHON "${CMAKE_SOURCE_DIR}/.venv/bin/python" CACHE FILEPATH
    "Python of the virtual environment holding the PyTorch wheel (see scripts/setup.sh)")
if(NOT EXISTS "${MT_PYTHON}")
  message(FATAL_ERROR "MT_PYTHON=${MT_PYTHON} does not exist: run scripts/setup.sh, which creates "
                      "the virtual environment with the pinned PyTorch wheel, or pass -DMT_PYTHON=")
endif()
execute_process(
  COMMAND "${MT_PYTHON}" -c
          "import os, torch, torch.utils; print(torch.utils.cmake_prefix_path); print(os.path.dirname(torch.__file__)); print(torch.__version__)"
  OUTPUT_VARIABLE _mt_torch_out ERROR_VARIABLE _mt_torch_err RESULT_VARIABLE _mt_torch_rc
  OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT _mt_torch_rc EQUAL 0)
  message(FATAL_ERROR "${MT_PYTHON} cannot import torch: ${_mt_torch_err}Run scripts/setup.sh.")
endif()
string(REPLACE "\n" ";" _mt_torch_out "${_mt_torch_out}")
list(GET _mt_torch_out 0 _mt_torch_prefix)
list(GET _mt_torch_out 1 MT_TORCH_DIR)
list(GET _mt_torch_out 2 MT_TORCH_VERSION)

# The wheel's CUDA runtime, not the machine's toolkit: libtorch_cuda was built against the wheel's
# (13.2 here, the toolkit may be 13.0), and one loaded copy serves both. Defined before
# find_package(Torch), whose CUDA setup then leaves it alone and needs no toolkit at all.
file(GLOB _mt_cudart "${MT_TORCH_DIR}/../nvidia/cu*/lib/libcudart.so.*")
if(_mt_cudart AND NOT TARGET torch::cudart)
  list(GET _mt_cudart 0 _mt_cudart)
  get_filename_component(_mt_cuda_lib_dir "${_mt_cudart}" DIRECTORY)
  get_filename_component(MT_WHEEL_CUDA_DIR "${_mt_cuda_lib_dir}" DIRECTORY)
  add_library(torch::cudart INTERFACE IMPORTED)
  set_property(TARGET torch::cudart PROPERTY INTERFACE_LINK_LIBRARIES "${_mt_cudart}")
endif()

list(PREPEND CMAKE_PREFIX_PATH "${_mt_torch_prefix}")
set(TORCH_LIBRARY "${MT_TORCH_DIR}/lib/libtorch.so" CACHE FILEPATH "" FORCE)
set(c10_LIBRARY "${MT_TORCH_DIR}/lib/libc10.so" CACHE FILEPATH "" FORCE)
if(EXISTS "${MT_TORCH_DIR}/lib/libc10_cuda.so")
  set(C10_CUDA_LIBRARY "${MT_TORCH_DIR}/lib/libc10_cuda.so" CACHE FILEPATH "" FORCE)
endif()
find_package(Torch REQUIRED)
message(STATUS "LibTorch ${MT_TORCH_VERSION} from ${MT_TORCH_DIR}")
foreach(_mt_lib IN ITEMS "${TORCH_LIBRARY}" "${c10_LIBRARY}")
  if(NOT _mt_lib MATCHES "^${MT_TORCH_DIR}/")
    message(FATAL_ERROR "LibTorch library ${_mt_lib} is not the wheel's (${MT_TORCH_DIR}/lib)")
  endif()
endforeach()

# One OpenMP runtime per process: ours (-fopenmp, for ATen's header-only parallel_for) must be the
# wheel's libgomp, which LibTorch's own loops and MKL's threads already use.
if(EXISTS "${MT_TORCH_DIR}/lib/libgomp.so.1")
  set(OpenMP_gomp_LIBRARY "${MT_TORCH_DIR}/lib/libgomp.so.1" CACHE FILEPATH "" FORCE)
endif()

# The GPU path: the wheel's CUDA headers and runtime, and its NCCL (the copy libtorch_cuda loads;
# the machine's older NCCL would lack symbols libtorch_cuda needs). Host code only, so g++ builds
# it on machines without a GPU or a CUDA toolkit, and CI compiles and links it everywhere.
set(MT_WITH_CUDA OFF)
set(MT_WITH_NCCL OFF)
# cuda_runtime_api.h includes crt/host_defines.h, which comes in its own wheel (nvidia-cuda-crt, in
# scripts/python-requirements.txt); without it the GPU path is left out rather than fail to compile.
if(MT_WHEEL_CUDA_DIR AND EXISTS "${MT_WHEEL_CUDA_DIR}/include/cuda_runtime_api.h"
   AND NOT EXISTS "${MT_WHEEL_CUDA_DIR}/include/crt/host_defines.h")
  message(STATUS "GPU path left out: ${MT_WHEEL_CUDA_DIR}/include has no crt/host_defines.h (pip install nvidia-cuda-crt)")
elseif(MT_WHEEL_CUDA_DIR AND EXISTS "${MT_WHEEL_CUDA_DIR}/include/cuda_runtime_api.h")
  set(MT_WITH_CUDA ON)
  set(MT_CUDA_INCLUDE_DIR "${MT_WHEEL_CUDA_DIR}/include")
  set(_mt_nccl "${MT_TORCH_DIR}/../nvidia/nccl")
  if(EXISTS "${_mt_nccl}/include/nccl.h" AND EXISTS "${_mt_nccl}/lib/libnccl.so.2")
    set(MT_WITH_NCCL ON)
    get_filename_component(MT_NCCL_INCLUDE_DIR "${_mt_nccl}/include" ABSOLUTE)
    get_filename_component(MT_NCCL_LIBRARY "${_mt_nccl}/lib/libnccl.so.2" ABSOLUTE)
  endif()
endif()
message(STATUS "GPU path: CUDA ${MT_WITH_CUDA}, NCCL ${MT_WITH_NCCL}")

# mt_prefer_system_fmt(target): the wheel ships fmt 12 headers inside its include directory, which
# precedes the system's on the include path, while we link the system's libfmt: a directory of
# our own holding only the system's fmt headers goes first, so headers and library agree.
function(mt_prefer_system_fmt target)
  get_target_property(_fmt_dirs fmt::fmt INTERFACE_INCLUDE_DIRECTORIES)
  foreach(_dir IN LISTS _fmt_dirs)
    if(EXISTS "${_dir}/fmt/format.h")
      set(_shim "${CMAKE_BINARY_DIR}/system-fmt-include")
      if(NOT EXISTS "${_shim}/fmt")
        file(MAKE_DIRECTORY "${_shim}")
        file(CREATE_LINK "${_dir}/fmt" "${_shim}/fmt" SYMBOLIC)
      endif()
      target_include_directories(${target} BEFORE PUBLIC "${_shim}")
      return()
    endif()
  endforeach()
endfunction()
