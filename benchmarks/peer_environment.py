"""The environment a PyTorch peer ran in, with the same keys mtengine records in its result JSON
(`environment`): the CPU and its numbers, the BLAS with a measured SGEMM probe, threads, the
denormal mode, the variables that steer threading, plus the interpreter and the torch build; and
what every peer launched by mpirun needs besides: its threads and its ranks' host names, and the
freed-memory policy mtengine runs with."""
import ctypes
import ctypes.util
import os
import platform
import resource
import socket
import subprocess
import sys
import time

import torch
import torch.distributed as dist

STEERING_VARIABLES = (
    "OMP_NUM_THREADS", "OMP_WAIT_POLICY", "OMP_PROC_BIND", "OMP_PLACES", "MKL_NUM_THREADS",
    "MKL_ENABLE_INSTRUCTIONS", "MKL_CBWR", "OPENBLAS_NUM_THREADS", "OPENBLAS_CORETYPE",
    "KMP_AFFINITY", "GOMP_CPU_AFFINITY", "DNNL_MAX_CPU_ISA", "ONEDNN_MAX_CPU_ISA",
    "MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "GLIBC_TUNABLES")
# mallopt's parameters (malloc.h) and the largest freed block kept, as mtengine keeps it.
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3
FREED_MEMORY_KEPT_BYTES = 1 << 30
_freed_memory_kept = -1
# madvise's advice for transparent huge pages (sys/mman.h), and the heap mtengine advises for them.
MADV_HUGEPAGE = 14
HUGE_PAGE_HEAP_BYTES = (1 << 30) - (4 << 20)
_heap_huge_pages = -1
ISA_FLAGS = (("amx_tile", "amx"), ("avx512_bf16", "avx512_bf16"), ("avx512f", "avx512f"),
             ("avx2", "avx2"), ("fma", "fma"), ("avx", "avx"), ("sse4_2", "sse4.2"))


def first_line(command):
    """First line of a command's output, or "" when it cannot run."""
    try:
        out = subprocess.run(command, capture_output=True, text=True, timeout=30, check=False).stdout
        return out.splitlines()[0].strip() if out else ""
    except OSError:
        return ""


def cpuinfo():
    """The first processor block of /proc/cpuinfo as a dict."""
    fields = {}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if not line.strip():
                    if fields:
                        break
                    continue
                key, _, value = line.partition(":")
                fields.setdefault(key.strip(), value.strip())
    except OSError:
        pass
    return fields


def memory_mib():
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) // 1024
    except OSError:
        pass
    return 0


def os_name():
    try:
        with open("/etc/os-release") as f:
            for line in f:
                if line.startswith("PRETTY_NAME="):
                    return line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    return ""


def sgemm_gflops_per_thread(threads):
    """Best of 10 SGEMMs of 512 x 512 x 512 through torch.mm, on all of PyTorch's threads at once.

    mtengine runs one 256^3 product per thread side by side, which Python's threads cannot do
    without a global thread setting; a peer's figure is judged only against the same peer's."""
    n = 512
    a, b = torch.full((n, n), 0.5), torch.full((n, n), 0.25)
    best = float("inf")
    for _ in range(10):
        start = time.perf_counter()
        torch.mm(a, b)
        best = min(best, time.perf_counter() - start)
    return 2.0 * n ** 3 / best / 1e9 / max(1, threads)


def blas_fields(threads):
    config = torch.__config__.show()
    mkl_line = next((l.strip(" -") for l in config.splitlines() if "Math Kernel Library" in l), "")
    if torch.backends.mkl.is_available():
        version = mkl_line.split("Version ")[-1].split("-")[0].split(" ")[0] if mkl_line else ""
        vendor = "MKL"
    else:
        vendor, version = config.split("BLAS_INFO=")[-1].split(",")[0], ""
    capability = next((l.split(":")[-1].strip() for l in config.splitlines()
                       if "CPU capability usage" in l), "")
    gflops = sgemm_gflops_per_thread(threads)
    summary = f"{vendor} {version} (ATen CPU capability {capability}), {threads} threads, " \
              f"SGEMM {gflops:.0f} GFLOP/s per thread"
    return {"blas": summary, "blas_vendor": vendor, "blas_version": version,
            "blas_core": f"ATen CPU capability {capability}", "blas_threads": threads,
            "blas_gflops_per_thread": gflops}


def environment(threads, flush_denormal):
    here = os.path.dirname(os.path.abspath(__file__))
    config = torch.__config__.show()
    compiler = next((line.strip(" -") for line in config.splitlines() if "GCC" in line), "")
    cpu = cpuinfo()
    flags = set(cpu.get("flags", "").split())
    siblings, cores = int(cpu.get("siblings", "0") or 0), int(cpu.get("cpu cores", "0") or 0)
    env = {
        "libtorch": torch.__version__,
        "torch": torch.__version__,
        "python": platform.python_version(),
        "python_executable": sys.executable,
        "mpi": first_line(["ompi_info", "--version"]),  # never mpirun: nested inside a job it hangs
        "compiler": compiler or platform.python_compiler(),
        "build_revision": first_line(["git", "-C", here, "rev-parse", "HEAD"]),
        "build_tree_dirty": first_line(["git", "-C", here, "status", "--porcelain",
                                        "--untracked-files=no"]) != "",
        "os": os_name(),
        "kernel": f"{platform.system()} {platform.release()}",
        "cpu_model": cpu.get("model name", ""),
        "cpu_vendor": cpu.get("vendor_id", ""),
        "cpu_family": int(cpu.get("cpu family", "-1") or -1),
        "cpu_model_number": int(cpu.get("model", "-1") or -1),
        "cpu_stepping": int(cpu.get("stepping", "-1") or -1),
        "cpu_cores": os.cpu_count() or 0,
        "threads_per_core": siblings // cores if siblings and cores and siblings >= cores else 1,
        "cpu_mhz": float(cpu.get("cpu MHz", "0") or 0),
        "memory_mib": memory_mib(),
        "cpu_isa": " ".join(name for flag, name in ISA_FLAGS if flag in flags),
        "threads_per_rank": threads,
        "flush_denormal": flush_denormal,
        "env_vars": {name: os.environ[name] for name in STEERING_VARIABLES if name in os.environ},
    }
    if _freed_memory_kept >= 0:
        env["freed_memory_kept_bytes"] = _freed_memory_kept
    if _heap_huge_pages >= 0:
        env["heap_huge_pages_bytes"] = _heap_huge_pages
    if transparent_huge_pages_mode():
        env["transparent_huge_pages"] = transparent_huge_pages_mode()
    env.update(blas_fields(threads))
    return env


def keep_freed_memory_for_reuse():
    """What mtengine does at start (engine/src/core/env/resources.h): glibc keeps freed blocks up to
    1 GiB in the heap and the heap untrimmed, instead of handing large blocks back to the kernel and
    faulting them in afresh at the next step; thresholds the user set are left alone. A
    performance-minded PyTorch user tunes the allocator too (PyTorch's CPU tuning guide suggests
    jemalloc or tcmalloc): on a 2-vCPU EPYC (Zen 5) this made PyTorch eager 7 % faster on the
    quick-start model. Returns the largest block kept (0: the user's thresholds, or not glibc)."""
    global _freed_memory_kept
    tunables = os.environ.get("GLIBC_TUNABLES", "")
    steered = ("MALLOC_MMAP_THRESHOLD_" in os.environ or "MALLOC_TRIM_THRESHOLD_" in os.environ
               or "glibc.malloc.mmap_threshold" in tunables or "glibc.malloc.trim_threshold" in tunables)
    kept = 0
    if not steered:
        try:
            libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
            if libc.mallopt(M_MMAP_THRESHOLD, FREED_MEMORY_KEPT_BYTES):
                kept = FREED_MEMORY_KEPT_BYTES
            elif libc.mallopt(M_MMAP_THRESHOLD, 32 << 20):
                kept = 32 << 20
            libc.mallopt(M_TRIM_THRESHOLD, 2**31 - 1)
        except (OSError, AttributeError):
            kept = 0
    _freed_memory_kept = kept
    advise_heap_huge_pages(kept)
    return kept


def transparent_huge_pages_mode(path="/sys/kernel/mm/transparent_hugepage/enabled"):
    """The kernel's THP mode, the bracketed word of "always [madvise] never", or ""."""
    try:
        with open(path) as f:
            line = f.readline()
    except OSError:
        return ""
    return line.split("[", 1)[1].split("]", 1)[0] if "[" in line and "]" in line else ""


def advise_heap_huge_pages(kept):
    """What mtengine does next (engine/src/core/env/huge_pages.h): where the kernel gives huge pages
    on request (THP mode madvise), reserve address space at the heap's top, advise it and hand it
    back to malloc, so later tensors and Gloo's buffers fault in 2 MiB at a time; a GLIBC_TUNABLES
    glibc.malloc.hugetlb of the user's is left to glibc. Returns the bytes advised."""
    global _heap_huge_pages
    advised = 0
    if (transparent_huge_pages_mode() == "madvise" and kept > HUGE_PAGE_HEAP_BYTES
            and "glibc.malloc.hugetlb" not in os.environ.get("GLIBC_TUNABLES", "")):
        try:
            libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
            libc.malloc.restype = ctypes.c_void_p
            libc.malloc.argtypes = [ctypes.c_size_t]
            libc.free.argtypes = [ctypes.c_void_p]
            libc.sbrk.restype = ctypes.c_void_p
            libc.sbrk.argtypes = [ctypes.c_ssize_t]
            libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
            block = libc.malloc(HUGE_PAGE_HEAP_BYTES)
            top = libc.sbrk(0)
            page = os.sysconf("SC_PAGE_SIZE")
            if block and top and block + HUGE_PAGE_HEAP_BYTES <= top:
                start = (block + page - 1) // page * page
                if libc.madvise(start, top - start, MADV_HUGEPAGE) == 0:
                    advised = top - start
            libc.free(block)
        except (OSError, AttributeError):
            advised = 0
    _heap_huge_pages = advised
    return advised


def default_threads():
    """OMP_NUM_THREADS when set, else this node's cores shared among its ranks."""
    if os.environ.get("OMP_NUM_THREADS", "").isdigit() and int(os.environ["OMP_NUM_THREADS"]) > 0:
        return int(os.environ["OMP_NUM_THREADS"])
    local = int(os.environ.get("OMPI_COMM_WORLD_LOCAL_SIZE", "1"))
    return max(1, (os.cpu_count() or 1) // local)


def gather_text(rank, world, text):
    """Every rank's `text` (up to 256 bytes), in rank order: each fills its own row, a sum
    all-reduce joins them."""
    rows = torch.zeros(world, 256, dtype=torch.int32)
    encoded = list(text.encode()[:256])
    rows[rank, :len(encoded)] = torch.tensor(encoded, dtype=torch.int32)
    dist.all_reduce(rows)
    return [bytes(row[row.nonzero().flatten()].tolist()).decode() for row in rows]


def gather_hostnames(rank, world):
    """Every rank's hostname, in rank order."""
    return gather_text(rank, world, socket.gethostname())


def _own_cpu_seconds():
    use = resource.getrusage(resource.RUSAGE_SELF)
    return use.ru_utime + use.ru_stime


def _proc_stat():
    """The machine's busy, steal and total ticks and its CPU count (/proc/stat), None if unreadable."""
    try:
        with open("/proc/stat") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    cpus = sum(1 for line in lines if line.startswith("cpu") and line[3:4].isdigit())
    for line in lines:
        if line.startswith("cpu "):
            v = [int(x) for x in line.split()[1:9]] + [0]
            user, nice, system, idle, iowait, irq, softirq, steal = v[:8]
            busy = user + nice + system + irq + softirq
            return busy, steal, busy + idle + iowait + steal, cpus
    return None


class HostWindow:
    """Each rank's view of its host while the peer works, as mtengine reports it (`rank_cpu_s` and
    `rank_host_window` in the result): mtrun reads only its own host, and counts as the job's CPU
    only what its own children used, which ranks a scheduler starts are not. Opened as the ranks
    leave a barrier together; `gather` closes it after another, so one host's ranks cover the same
    time."""

    def __init__(self):
        dist.barrier()
        self.start = (time.monotonic(), _own_cpu_seconds(), _proc_stat())

    def gather(self, rank, world):
        """(rank_cpu_s, rank_host_window) in rank order, on every rank."""
        dist.barrier()
        wall0, own0, stat0 = self.start
        wall1, own1, stat1 = time.monotonic(), _own_cpu_seconds(), _proc_stat()
        values = torch.zeros(world, 6, dtype=torch.float64)
        values[rank, 0] = own1
        if stat0 and stat1 and wall1 > wall0:
            ticks = os.sysconf("SC_CLK_TCK")
            total = stat1[2] - stat0[2]
            values[rank, 1:] = torch.tensor([wall1 - wall0, stat1[3], (stat1[0] - stat0[0]) / ticks, own1 - own0,
                                             100.0 * (stat1[1] - stat0[1]) / total if total > 0 else 0.0],
                                            dtype=torch.float64)
        dist.all_reduce(values)
        try:
            with open("/proc/sys/kernel/random/boot_id") as f:
                boot_id = f.read().strip()
        except OSError:
            boot_id = ""
        boot_ids = gather_text(rank, world, boot_id)
        windows = [None if v[1] <= 0 else {"wall_s": v[1].item(), "cpus": int(v[2]), "busy_cpu_s": v[3].item(),
                                           "own_cpu_s": v[4].item(), "steal_pct": v[5].item(), "boot_id": b}
                   for v, b in zip(values, boot_ids)]
        return [v[0].item() for v in values], windows
