// Tensor collectives over NCCL, on the GPU this rank was given (its local rank). One NCCL
// communicator per process group, bootstrapped by broadcasting rank 0's ncclUniqueId over the
// control channel (as nccl-tests and llm.c do). Collectives run on a stream of their own: each
// first waits for an event recorded on the caller's stream (so it sees what the caller computed),
// and its handle's wait() makes the caller's stream wait for the collective's completion event,
// so nothing blocks the host. A watchdog thread polls the events of collectives in flight: one
// not complete after the timeout, or an asynchronous NCCL error, aborts the communicator and the
// job with the rank, the operation and its sequence number.
#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "core/comm/communicator.h"
#include "core/comm/control_channel.h"
#include "core/process/job_abort.h"
#include "core/cuda/cuda_check.h"
#include "core/cuda/cuda_device.h"

namespace mt {
namespace {

ncclDataType_t nccl_type(ElementType type) {
  switch (type) {
    case ElementType::f32: return ncclFloat32;
    case ElementType::bf16: return ncclBfloat16;
    case ElementType::i32: return ncclInt32;
    case ElementType::u8: return ncclUint8;
  }
  return ncclUint8;
}

cudaStream_t as_stream(StreamRef stream) { return static_cast<cudaStream_t>(stream.handle); }

class NcclWork final : public Work {
 public:
  NcclWork(cudaEvent_t done, cudaStream_t caller, std::string description)
      : done_(done), caller_(caller), description_(std::move(description)) {}
  ~NcclWork() override { cudaEventDestroy(done_); }

  bool test() override { return cudaEventQuery(done_) == cudaSuccess; }
  // Orders the caller's stream after the collective; the host does not wait.
  void wait() override { MT_CUDA_CHECK(cudaStreamWaitEvent(caller_, done_, 0)); }
  std::string describe() const override { return description_; }
  cudaEvent_t event() const { return done_; }

 private:
  cudaEvent_t done_;
  cudaStream_t caller_;
  std::string description_;
};

class NcclCommunicator final : public Communicator {
 public:
  NcclCommunicator(ControlChannel& control, double timeout_s)
      : rank_(control.rank()), world_size_(control.world_size()), timeout_s_(timeout_s) {
    check_versions(control);
    device_ = select_cuda_device(control.local_rank(), control.local_size());
    std::vector<char> id(sizeof(ncclUniqueId));
    if (rank_ == 0) {
      ncclUniqueId unique{};
      MT_NCCL_CHECK(ncclGetUniqueId(&unique));
      std::memcpy(id.data(), &unique, sizeof(unique));
    }
    control.broadcast_bytes(id, 0);
    ncclUniqueId unique{};
    std::memcpy(&unique, id.data(), sizeof(unique));
    MT_NCCL_CHECK(ncclCommInitRank(&comm_, world_size_, unique, rank_));
    MT_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    MT_CUDA_CHECK(cudaEventCreateWithFlags(&ready_, cudaEventDisableTiming));
    watchdog_ = std::thread([this] { watch(); });
  }

  // A sub-communicator split from `parent` (ncclCommSplit): same device, its own stream.
  NcclCommunicator(ncclComm_t comm, int device, double timeout_s)
      : timeout_s_(timeout_s), device_(device), comm_(comm) {
    MT_NCCL_CHECK(ncclCommUserRank(comm_, &rank_));
    MT_NCCL_CHECK(ncclCommCount(comm_, &world_size_));
    MT_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    MT_CUDA_CHECK(cudaEventCreateWithFlags(&ready_, cudaEventDisableTiming));
    watchdog_ = std::thread([this] { watch(); });
  }

  std::unique_ptr<Communicator> split(int color, int key) override {
    ncclComm_t child = nullptr;
    MT_NCCL_CHECK(ncclCommSplit(comm_, color, key, &child, nullptr));
    return std::make_unique<NcclCommunicator>(child, device_, timeout_s_);
  }

  ~NcclCommunicator() override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    watchdog_.join();
    cudaStreamSynchronize(stream_);
    ncclCommDestroy(comm_);
    cudaEventDestroy(ready_);
    cudaStreamDestroy(stream_);
  }

  int rank() const override { return rank_; }
  int world_size() const override { return world_size_; }
  const char* backend() const override { return "nccl"; }
  void synchronize() override { MT_CUDA_CHECK(cudaStreamSynchronize(stream_)); }
  bool device_memory() const override { return true; }

  using Communicator::all_reduce;
  WorkHandle all_reduce(const void* send, void* recv, std::size_t count, ElementType type, StreamRef stream) override {
    const long seq = issue(CollectiveKind::all_reduce);
    after(stream);
    MT_NCCL_CHECK(ncclAllReduce(send, recv, count, nccl_type(type), ncclSum, comm_, stream_));
    return finish(stream, CollectiveKind::all_reduce, seq, count, type);
  }

  WorkHandle all_gather(const void* send, void* recv, std::size_t count, ElementType type, StreamRef stream) override {
    const long seq = issue(CollectiveKind::all_gather);
    after(stream);
    MT_NCCL_CHECK(ncclAllGather(send, recv, count, nccl_type(type), comm_, stream_));
    return finish(stream, CollectiveKind::all_gather, seq, count, type);
  }

  WorkHandle reduce_scatter(const void* send, void* recv, std::size_t count, ElementType type,
                            StreamRef stream) override {
    const long seq = issue(CollectiveKind::reduce_scatter);
    after(stream);
    MT_NCCL_CHECK(ncclReduceScatter(send, recv, count, nccl_type(type), ncclSum, comm_, stream_));
    return finish(stream, CollectiveKind::reduce_scatter, seq, count, type);
  }

  WorkHandle broadcast(void* data, std::size_t count, ElementType type, int root, StreamRef stream) override {
    const long seq = issue(CollectiveKind::broadcast);
    after(stream);
    MT_NCCL_CHECK(ncclBroadcast(data, data, count, nccl_type(type), root, comm_, stream_));
    return finish(stream, CollectiveKind::broadcast, seq, count, type);
  }

  WorkHandle all_to_all(const void* send, void* recv, std::size_t count, ElementType type, StreamRef stream) override {
    std::vector<std::size_t> counts(static_cast<std::size_t>(world_size_), count);
    return exchange(send, counts, recv, counts, type, stream, count * world_size_);
  }

  WorkHandle all_to_all_v(const void* send, const std::vector<std::size_t>& send_counts, void* recv,
                          const std::vector<std::size_t>& recv_counts, ElementType type, StreamRef stream) override {
    if (send_counts.size() != static_cast<std::size_t>(world_size_) ||
        recv_counts.size() != static_cast<std::size_t>(world_size_))
      throw std::invalid_argument("all_to_all_v: one count per rank expected");
    std::size_t total = 0;
    for (std::size_t c : send_counts) total += c;
    return exchange(send, send_counts, recv, recv_counts, type, stream, total);
  }

 private:
  struct InFlight {
    std::shared_ptr<NcclWork> work;
    std::chrono::steady_clock::time_point started;
  };

  void check_versions(ControlChannel& control) {
    int loaded = 0;
    MT_NCCL_CHECK(ncclGetVersion(&loaded));
    if (loaded / 100 != NCCL_VERSION_CODE / 100)
      throw std::runtime_error(
          fmt::format("NCCL version mismatch: built against {}.{}.{}, loaded {} (check LD_LIBRARY_PATH: the "
                      "engine must load the NCCL of the PyTorch wheel it was built with)",
                      NCCL_MAJOR, NCCL_MINOR, NCCL_PATCH, loaded));
    const double low = control.min(loaded), high = control.max(loaded);
    if (low != high)
      throw std::runtime_error(fmt::format("NCCL version mismatch across ranks: {} and {} loaded",
                                           static_cast<long>(low), static_cast<long>(high)));
  }

  // The collective stream waits for everything the caller enqueued so far.
  void after(StreamRef stream) {
    MT_CUDA_CHECK(cudaEventRecord(ready_, as_stream(stream)));
    MT_CUDA_CHECK(cudaStreamWaitEvent(stream_, ready_, 0));
  }

  WorkHandle finish(StreamRef stream, CollectiveKind kind, long seq, std::size_t count, ElementType type) {
    cudaEvent_t done;
    MT_CUDA_CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    MT_CUDA_CHECK(cudaEventRecord(done, stream_));
    const std::string label = take_label();
    auto work =
        std::make_shared<NcclWork>(done, as_stream(stream),
                                   fmt::format("{} #{} ({} {}{}) on rank {}", collective_name(kind), seq, count,
                                               element_type_name(type), label.empty() ? "" : ", " + label, rank_));
    {
      std::lock_guard<std::mutex> lock(mutex_);
      in_flight_.push_back({work, std::chrono::steady_clock::now()});
    }
    wake_.notify_one();
    return work;
  }

  // Grouped point-to-point: what all-to-all is in NCCL.
  WorkHandle exchange(const void* send, const std::vector<std::size_t>& send_counts, void* recv,
                      const std::vector<std::size_t>& recv_counts, ElementType type, StreamRef stream,
                      std::size_t total) {
    const long seq = issue(CollectiveKind::all_to_all);
    after(stream);
    const std::size_t bytes = element_bytes(type);
    const auto* out = static_cast<const char*>(send);
    auto* in = static_cast<char*>(recv);
    MT_NCCL_CHECK(ncclGroupStart());
    for (int peer = 0; peer < world_size_; ++peer) {
      MT_NCCL_CHECK(ncclSend(out, send_counts[peer], nccl_type(type), peer, comm_, stream_));
      MT_NCCL_CHECK(ncclRecv(in, recv_counts[peer], nccl_type(type), peer, comm_, stream_));
      out += send_counts[peer] * bytes;
      in += recv_counts[peer] * bytes;
    }
    MT_NCCL_CHECK(ncclGroupEnd());
    return finish(stream, CollectiveKind::all_to_all, seq, total, type);
  }

  void watch() {
    cudaSetDevice(device_);  // event queries are per-thread-device
    std::unique_lock<std::mutex> lock(mutex_);
    while (!stop_) {
      wake_.wait_for(lock, std::chrono::milliseconds(100));
      const auto now = std::chrono::steady_clock::now();
      while (!in_flight_.empty() && in_flight_.front().work->test()) in_flight_.erase(in_flight_.begin());
      ncclResult_t async = ncclSuccess;
      ncclCommGetAsyncError(comm_, &async);
      std::string problem;
      if (async != ncclSuccess && async != ncclInProgress)
        problem = fmt::format("NCCL asynchronous error: {}", ncclGetErrorString(async));
      else if (timeout_s_ > 0 && !in_flight_.empty() &&
               std::chrono::duration<double>(now - in_flight_.front().started).count() > timeout_s_)
        problem = fmt::format(
            "collective timeout: waited {:g} s for {}; a peer is stuck, slow or "
            "gone (raise --collective-timeout if this is expected)",
            timeout_s_, in_flight_.front().work->describe());
      if (!problem.empty()) {
        ncclCommAbort(comm_);
        abort_job(problem, 1);
      }
    }
  }

  int rank_, world_size_;
  double timeout_s_;
  int device_ = 0;
  ncclComm_t comm_ = nullptr;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t ready_ = nullptr;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<InFlight> in_flight_;
  bool stop_ = false;
  std::thread watchdog_;
};

}  // namespace

std::unique_ptr<Communicator> make_nccl_communicator(ControlChannel& control, double timeout_s) {
  return std::make_unique<NcclCommunicator>(control, timeout_s);
}

}  // namespace mt
