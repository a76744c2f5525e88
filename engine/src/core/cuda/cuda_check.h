// Checking CUDA and NCCL calls: a failure prints the rank, host, call site and the library's own
// error text, then aborts the whole job. Only for sources built with CUDA.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#if MT_WITH_NCCL
#include <nccl.h>
#endif

namespace mt {

[[noreturn]] void cuda_failure(const std::string& library, const std::string& error, const char* call, const char* file,
                               int line);

}  // namespace mt

#define MT_CUDA_CHECK(call)                                                                  \
  do {                                                                                       \
    const cudaError_t mt_cuda_rc = (call);                                                   \
    if (mt_cuda_rc != cudaSuccess)                                                           \
      ::mt::cuda_failure("CUDA", cudaGetErrorString(mt_cuda_rc), #call, __FILE__, __LINE__); \
  } while (0)

#define MT_NCCL_CHECK(call)                                                                  \
  do {                                                                                       \
    const ncclResult_t mt_nccl_rc = (call);                                                  \
    if (mt_nccl_rc != ncclSuccess)                                                           \
      ::mt::cuda_failure("NCCL", ncclGetErrorString(mt_nccl_rc), #call, __FILE__, __LINE__); \
  } while (0)
