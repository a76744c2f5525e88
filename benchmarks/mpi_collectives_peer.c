/* Bare MPI peer of `mtengine comm`: the same collectives, message sizes, placements, all-to-all
 * splits, input patterns and output checks, each a blocking MPI call in a plain loop timed with
 * MPI_Wtime. What mtengine adds on top of the MPI library (its communicator, non-blocking calls
 * and progress thread, work handles) is the difference between the two.
 *
 *   mpirun -np 4 build/bin/mpi_collectives_peer --min-bytes 1024 --max-bytes 67108864 \
 *       --step-factor 4 --output peer.json
 *
 * Flags as mtengine comm: --ops all|LIST, --sizes LIST or --min-bytes/--max-bytes/--step-factor,
 * --warmup, --iters, --timed-bytes, --placement in_place|out_of_place|both, --split equal|uneven|both, --output;
 * and --thread-level, --thread-multiple (below).
 * Rules as mtengine comm (engine/src/workloads/comm/): a message of B bytes is the buffer for
 * all_reduce and broadcast, the gathered buffer for all_gather, the input for reduce_scatter and
 * what a rank sends in all for all_to_all (B / 4 / ranks elements per block, at least one);
 * latency is the MAX over ranks of each rank's mean time per call; algbw = bytes / latency;
 * busbw = algbw x the nccl-tests factor. Input element i of rank r is (r + 1)(1 + i mod 7), so
 * every sum is exact in fp32; all-to-all elements encode sender, receiver and index; the uneven
 * split sends e + (r + p) mod n elements from rank r to peer p. After timing, fresh inputs go
 * through one more call and every output element is checked; the wrong ones, summed over ranks,
 * are reported, and any makes the program exit 1. Prints one line per row; rank 0 writes the rows
 * as a result JSON (`rows`, as mtengine comm writes them).
 *
 * --thread-multiple initialises MPI with MPI_THREAD_MULTIPLE, as mtengine must (its progress thread
 * and the caller both call MPI), instead of MPI_Init: Open MPI then locks inside every call, which
 * alone costs a 1 KiB collective about 0.1 µs on 2 ranks. --thread-level single|funneled|serialized|
 * multiple asks MPI_Init_thread for any level (--thread-multiple is --thread-level multiple), to tell
 * which level that cost comes with. The result's `mpi_thread_level` says which ran (MPI_Init: single). */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#define MAX_SIZES 64

struct config {
  char ops[256];
  char sizes[1024];
  long long min_bytes, max_bytes;
  double step_factor;
  long long warmup, iters, timed_bytes;
  char placement[16], split[16], output[4096];
  int thread_level; /* MPI_THREAD_*, or -1: MPI_Init */
};

struct op {
  const char* name;
  int in_place, out_of_place, splits, per_rank_blocks;
  double (*bus_factor)(int n);
};

static double factor_all_reduce(int n) { return 2.0 * (n - 1) / n; }
static double factor_ring(int n) { return (double)(n - 1) / n; }
static double factor_one(int n) {
  (void)n;
  return 1.0;
}

/* mtengine's table, in its order: name, in place, out of place, splits, per-rank blocks. */
static const struct op OPS[] = {
    {"all_reduce", 1, 1, 0, 0, factor_all_reduce}, {"all_gather", 1, 1, 0, 1, factor_ring},
    {"reduce_scatter", 0, 1, 0, 1, factor_ring},   {"broadcast", 1, 0, 0, 0, factor_one},
    {"all_to_all", 0, 1, 1, 1, factor_ring},
};
#define N_OPS (sizeof OPS / sizeof OPS[0])

struct shape {
  int rank, world, in_place, uneven;
  size_t count;
};

static int rank_, world_;

static void die(const char* message) {
  if (rank_ == 0) fprintf(stderr, "mpi_collectives_peer: %s\n", message);
  MPI_Abort(MPI_COMM_WORLD, 2);
  exit(2);
}

static void check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(rc, text, &length);
  fprintf(stderr, "mpi_collectives_peer: rank %d: %s failed: %s\n", rank_, what, text);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

static float bench_value(int rank, size_t i) { return (float)((rank + 1) * (int)(1 + i % 7)); }
static float bench_sum(int world, size_t i) { return (float)(world * (world + 1) / 2 * (int)(1 + i % 7)); }
static float tag(int from, int to, size_t i) { return (float)(from * 64 + to) * 1024.0f + (float)(i % 1024); }
static size_t sent(const struct shape* s, int from, int to) {
  return s->uneven ? s->count + (size_t)((from + to) % s->world) : s->count;
}

static size_t send_count(const struct op* o, const struct shape* s) {
  if (!strcmp(o->name, "all_gather")) return s->in_place ? s->count * s->world : s->count;
  if (!strcmp(o->name, "reduce_scatter")) return s->count * s->world;
  if (!strcmp(o->name, "all_to_all")) {
    size_t total = 0;
    for (int p = 0; p < s->world; ++p) total += sent(s, s->rank, p);
    return total;
  }
  return s->count;
}

static size_t recv_count(const struct op* o, const struct shape* s) {
  if (!strcmp(o->name, "all_gather")) return s->count * s->world;
  if (!strcmp(o->name, "reduce_scatter")) return s->count;
  if (!strcmp(o->name, "all_to_all")) {
    size_t total = 0;
    for (int p = 0; p < s->world; ++p) total += sent(s, p, s->rank);
    return total;
  }
  return s->count;
}

static void fill(const struct op* o, const struct shape* s, float* send) {
  if (!strcmp(o->name, "all_to_all")) {
    for (int p = 0; p < s->world; ++p)
      for (size_t i = 0; i < sent(s, s->rank, p); ++i) *send++ = tag(s->rank, p, i);
    return;
  }
  float* mine = !strcmp(o->name, "all_gather") && s->in_place ? send + (size_t)s->rank * s->count : send;
  size_t n = !strcmp(o->name, "reduce_scatter") ? s->count * s->world : s->count;
  for (size_t i = 0; i < n; ++i) mine[i] = bench_value(s->rank, i);
}

struct buffers {
  float *send, *recv;
  int *send_counts, *send_displs, *recv_counts, *recv_displs;
};

static void issue(const struct op* o, const struct shape* s, struct buffers* b) {
  const int n = (int)s->count;
  float* out = s->in_place ? b->send : b->recv;
  if (!strcmp(o->name, "all_reduce")) {
    check(MPI_Allreduce(s->in_place ? MPI_IN_PLACE : b->send, out, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD),
          "MPI_Allreduce");
  } else if (!strcmp(o->name, "all_gather")) {
    if (s->in_place)
      check(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, out, n, MPI_FLOAT, MPI_COMM_WORLD), "MPI_Allgather");
    else check(MPI_Allgather(b->send, n, MPI_FLOAT, out, n, MPI_FLOAT, MPI_COMM_WORLD), "MPI_Allgather");
  } else if (!strcmp(o->name, "reduce_scatter")) {
    check(MPI_Reduce_scatter_block(b->send, out, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD), "MPI_Reduce_scatter_block");
  } else if (!strcmp(o->name, "broadcast")) {
    check(MPI_Bcast(b->send, n, MPI_FLOAT, 0, MPI_COMM_WORLD), "MPI_Bcast");
  } else if (s->uneven) {
    check(MPI_Alltoallv(b->send, b->send_counts, b->send_displs, MPI_FLOAT, out, b->recv_counts, b->recv_displs,
                        MPI_FLOAT, MPI_COMM_WORLD),
          "MPI_Alltoallv");
  } else {
    check(MPI_Alltoall(b->send, n, MPI_FLOAT, out, n, MPI_FLOAT, MPI_COMM_WORLD), "MPI_Alltoall");
  }
}

static size_t wrong(const struct op* o, const struct shape* s, const float* out) {
  size_t bad = 0;
  if (!strcmp(o->name, "all_reduce")) {
    for (size_t i = 0; i < s->count; ++i) bad += out[i] != bench_sum(s->world, i);
  } else if (!strcmp(o->name, "all_gather")) {
    for (int r = 0; r < s->world; ++r)
      for (size_t i = 0; i < s->count; ++i) bad += out[(size_t)r * s->count + i] != bench_value(r, i);
  } else if (!strcmp(o->name, "reduce_scatter")) {
    for (size_t i = 0; i < s->count; ++i) bad += out[i] != bench_sum(s->world, (size_t)s->rank * s->count + i);
  } else if (!strcmp(o->name, "broadcast")) {
    for (size_t i = 0; i < s->count; ++i) bad += out[i] != bench_value(0, i);
  } else {
    for (int p = 0; p < s->world; ++p)
      for (size_t i = 0; i < sent(s, p, s->rank); ++i) bad += *out++ != tag(p, s->rank, i);
  }
  return bad;
}

static void* checked_malloc(size_t bytes) {
  void* p = malloc(bytes ? bytes : 1);
  if (!p) die("out of memory");
  return p;
}

/* One row: time, check, and (rank 0) print it and append it to `rows`. Returns the wrong values. */
static double measure(const struct config* c, const struct op* o, const struct shape* s, FILE* rows, int first) {
  struct buffers b = {0};
  const size_t sends = send_count(o, s), recvs = recv_count(o, s);
  b.send = checked_malloc(sends * sizeof(float));
  b.recv = s->in_place ? NULL : checked_malloc(recvs * sizeof(float));
  float* input = checked_malloc(sends * sizeof(float));
  fill(o, s, input);
  memcpy(b.send, input, sends * sizeof(float));
  if (s->uneven) {
    b.send_counts = checked_malloc(sizeof(int) * (size_t)s->world);
    b.send_displs = checked_malloc(sizeof(int) * (size_t)s->world);
    b.recv_counts = checked_malloc(sizeof(int) * (size_t)s->world);
    b.recv_displs = checked_malloc(sizeof(int) * (size_t)s->world);
    int sd = 0, rd = 0;
    for (int p = 0; p < s->world; ++p) {
      b.send_counts[p] = (int)sent(s, s->rank, p);
      b.recv_counts[p] = (int)sent(s, p, s->rank);
      b.send_displs[p] = sd;
      b.recv_displs[p] = rd;
      sd += b.send_counts[p];
      rd += b.recv_counts[p];
    }
  }

  for (long long i = 0; i < c->warmup; ++i) issue(o, s, &b);
  /* --timed-bytes: small messages run more calls, from the swept size every rank shares. */
  const long long swept = (long long)s->count * (long long)sizeof(float);
  long long iters = c->iters;
  if (c->timed_bytes > 0 && swept > 0 && (c->timed_bytes + swept - 1) / swept > iters)
    iters = (c->timed_bytes + swept - 1) / swept;
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  for (long long i = 0; i < iters; ++i) issue(o, s, &b);
  const double mine_us = (MPI_Wtime() - start) * 1e6 / (double)iters;
  double latency_us = 0;
  check(MPI_Allreduce(&mine_us, &latency_us, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce (time)");

  memcpy(b.send, input, sends * sizeof(float));
  issue(o, s, &b);
  double bad = (double)wrong(o, s, s->in_place ? b.send : b.recv), total_bad = 0;
  check(MPI_Allreduce(&bad, &total_bad, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce (check)");

  const size_t bytes = (sends > recvs ? sends : recvs) * sizeof(float);
  const double algbw = (double)bytes / (latency_us * 1e-6) / 1e9, busbw = algbw * o->bus_factor(s->world);
  const char* split = o->splits ? (s->uneven ? "uneven" : "equal") : "";
  if (rank_ == 0) {
    printf("%-14s %-12s %-6s %12zu B  latency %12.2f us  algbw %8.3f GB/s  busbw %8.3f GB/s  wrong %.0f\n", o->name,
           s->in_place ? "in_place" : "out_of_place", split, bytes, latency_us, algbw, busbw, total_bad);
    fflush(stdout);
    fprintf(rows,
            "%s\n    {\"operation\": \"%s\", \"bytes\": %zu, \"count\": %zu, \"dtype\": \"f32\", \"in_place\": %s, "
            "\"split\": \"%s\", \"latency_us\": %.17g, \"algbw_gbps\": %.17g, \"busbw_gbps\": %.17g, "
            "\"wrong_values\": %.0f, \"iters\": %lld}",
            first ? "" : ",", o->name, bytes, s->count, s->in_place ? "true" : "false", split, latency_us, algbw, busbw,
            total_bad, iters);
  }
  free(b.send);
  free(b.recv);
  free(input);
  free(b.send_counts);
  free(b.send_displs);
  free(b.recv_counts);
  free(b.recv_displs);
  return total_bad;
}

/* The thread levels by the names --thread-level and the result use. */
static const struct {
  const char* name;
  int level;
} THREAD_LEVELS[] = {{"single", MPI_THREAD_SINGLE},
                     {"funneled", MPI_THREAD_FUNNELED},
                     {"serialized", MPI_THREAD_SERIALIZED},
                     {"multiple", MPI_THREAD_MULTIPLE}};
#define N_THREAD_LEVELS (sizeof THREAD_LEVELS / sizeof THREAD_LEVELS[0])

/* MPI_THREAD_* for a name, or -2 for an unknown one. */
static int thread_level_or_unknown(const char* name) {
  for (size_t k = 0; k < N_THREAD_LEVELS; ++k)
    if (!strcmp(name, THREAD_LEVELS[k].name)) return THREAD_LEVELS[k].level;
  return -2;
}

static const char* thread_level_name(int level) {
  for (size_t k = 0; k < N_THREAD_LEVELS; ++k)
    if (THREAD_LEVELS[k].level == level) return THREAD_LEVELS[k].name;
  return "single"; /* MPI_Init */
}

static int thread_level_of(const char* name) {
  const int level = thread_level_or_unknown(name);
  if (level == -2) die("--thread-level must be single, funneled, serialized or multiple");
  return level;
}

static const char* value_of(int argc, char** argv, int* i) {
  if (*i + 1 >= argc) die("a flag lacks its value (see the comment at the top of mpi_collectives_peer.c)");
  return argv[++*i];
}

/* A flag's text into its field, whole: a value cut short would measure something else unnoticed. */
static void copy_value(char* field, size_t size, const char* value, const char* flag) {
  if (strlen(value) >= size) {
    char message[256];
    snprintf(message, sizeof message, "%s is too long (at most %zu characters)", flag, size - 1);
    die(message);
  }
  memcpy(field, value, strlen(value) + 1);
}

static long long number(const char* text, const char* flag, long long minimum) {
  char* end = NULL;
  long long v = strtoll(text, &end, 10);
  if (!*text || *end || v < minimum) {
    char message[256];
    snprintf(message, sizeof message, "%s must be an integer of at least %lld, got '%s'", flag, minimum, text);
    die(message);
  }
  return v;
}

static void parse(int argc, char** argv, struct config* c) {
  *c = (struct config){.ops = "all",
                       .min_bytes = 1024,
                       .max_bytes = 64 << 20,
                       .step_factor = 2.0,
                       .warmup = 5,
                       .iters = 20,
                       .timed_bytes = 0,
                       .placement = "both",
                       .split = "both",
                       .thread_level = -1};
  for (int i = 1; i < argc; ++i) {
    const char* flag = argv[i];
    if (!strcmp(flag, "--ops")) copy_value(c->ops, sizeof c->ops, value_of(argc, argv, &i), flag);
    else if (!strcmp(flag, "--sizes")) copy_value(c->sizes, sizeof c->sizes, value_of(argc, argv, &i), flag);
    else if (!strcmp(flag, "--min-bytes")) c->min_bytes = number(value_of(argc, argv, &i), flag, 4);
    else if (!strcmp(flag, "--max-bytes")) c->max_bytes = number(value_of(argc, argv, &i), flag, 4);
    else if (!strcmp(flag, "--step-factor")) c->step_factor = atof(value_of(argc, argv, &i));
    else if (!strcmp(flag, "--warmup")) c->warmup = number(value_of(argc, argv, &i), flag, 0);
    else if (!strcmp(flag, "--iters")) c->iters = number(value_of(argc, argv, &i), flag, 1);
    else if (!strcmp(flag, "--timed-bytes")) c->timed_bytes = number(value_of(argc, argv, &i), flag, 0);
    else if (!strcmp(flag, "--placement"))
      copy_value(c->placement, sizeof c->placement, value_of(argc, argv, &i), flag);
    else if (!strcmp(flag, "--split")) copy_value(c->split, sizeof c->split, value_of(argc, argv, &i), flag);
    else if (!strcmp(flag, "--output")) copy_value(c->output, sizeof c->output, value_of(argc, argv, &i), flag);
    else if (!strcmp(flag, "--thread-multiple")) c->thread_level = MPI_THREAD_MULTIPLE;
    else if (!strcmp(flag, "--thread-level")) c->thread_level = thread_level_of(value_of(argc, argv, &i));
    else {
      char message[512];
      snprintf(message, sizeof message, "unknown flag '%s'", flag);
      die(message);
    }
  }
  if (!(c->step_factor > 1)) die("--step-factor must be greater than 1");
  if (c->min_bytes > c->max_bytes) die("--min-bytes must be at most --max-bytes");
  if (strcmp(c->placement, "in_place") && strcmp(c->placement, "out_of_place") && strcmp(c->placement, "both"))
    die("--placement must be in_place, out_of_place or both");
  if (strcmp(c->split, "equal") && strcmp(c->split, "uneven") && strcmp(c->split, "both"))
    die("--split must be equal, uneven or both");
}

static int message_sizes(const struct config* c, long long* sizes) {
  int n = 0;
  if (c->sizes[0]) {
    char list[sizeof c->sizes];
    snprintf(list, sizeof list, "%s", c->sizes);
    const size_t length = strlen(list);
    if (list[0] == ',' || list[length - 1] == ',' || strstr(list, ",,")) {
      char message[sizeof c->sizes + 64];
      snprintf(message, sizeof message, "--sizes '%s' has an empty item between commas", c->sizes);
      die(message);
    }
    for (char* item = strtok(list, ","); item; item = strtok(NULL, ",")) {
      if (n == MAX_SIZES) die("--sizes lists too many sizes");
      sizes[n] = number(item, "--sizes", 4);
      for (int k = 0; k < n; ++k) {
        if (sizes[k] != sizes[n]) continue;
        char message[128];
        snprintf(message, sizeof message, "--sizes: %lld is given twice (each size is measured once)", sizes[n]);
        die(message);
      }
      ++n;
    }
    return n;
  }
  for (double bytes = (double)c->min_bytes; bytes <= (double)c->max_bytes * (1 + 1e-9); bytes *= c->step_factor) {
    if (n == MAX_SIZES) die("the sweep has too many sizes");
    sizes[n++] = (long long)bytes;
  }
  return n;
}

static int selected(const struct config* c, const char* name) {
  if (!strcmp(c->ops, "all")) return 1;
  char list[sizeof c->ops];
  snprintf(list, sizeof list, "%s", c->ops);
  for (char* item = strtok(list, ","); item; item = strtok(NULL, ","))
    if (!strcmp(item, name)) return 1;
  return 0;
}

static void check_ops(const struct config* c) {
  if (!strcmp(c->ops, "all")) return;
  char list[sizeof c->ops];
  snprintf(list, sizeof list, "%s", c->ops);
  for (char* item = strtok(list, ","); item; item = strtok(NULL, ",")) {
    int known = 0;
    for (size_t k = 0; k < N_OPS; ++k) known |= !strcmp(item, OPS[k].name);
    if (!known) {
      char message[512];
      snprintf(message, sizeof message, "--ops: unknown collective '%s'", item);
      die(message);
    }
  }
}

/* The lines of a file that start with `key`, the rest of the first one (for /proc files). */
static void file_field(const char* path, const char* key, char* out, size_t size) {
  out[0] = 0;
  FILE* f = fopen(path, "r");
  if (!f) return;
  char line[1024];
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, key, strlen(key))) continue;
    char* value = strchr(line, ':');
    value = value ? value + 1 : line + strlen(key);
    while (*value == ' ' || *value == '\t' || *value == '=' || *value == '"') ++value;
    value[strcspn(value, "\"\n")] = 0;
    snprintf(out, size, "%s", value);
    break;
  }
  fclose(f);
}

/* The kernel's transparent huge page mode, the bracketed word of "always [madvise] never", or "". */
static void thp_mode(char* out, size_t size) {
  char line[256] = {0};
  out[0] = 0;
  FILE* f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
  if (!f) return;
  if (fgets(line, sizeof line, f)) {
    char* open = strchr(line, '[');
    char* close = open ? strchr(open, ']') : NULL;
    if (close) snprintf(out, size, "%.*s", (int)(close - open - 1), open + 1);
  }
  fclose(f);
}

/* The CPU's instruction sets that matter here, named and ordered as mtengine records them
 * (`cpu_isa`), so that a report tells the same machine apart from another alike. */
static void cpu_isa(char* out, size_t size) {
  static const char* const kFlags[][2] = {{"amx_tile", "amx"},    {"avx512_bf16", "avx512_bf16"},
                                          {"avx512f", "avx512f"}, {"avx2", "avx2"},
                                          {"fma", "fma"},         {"avx", "avx"},
                                          {"sse4_2", "sse4.2"}};
  char line[16384], padded[16386];
  out[0] = 0;
  FILE* f = fopen("/proc/cpuinfo", "r");
  if (!f) return;
  while (fgets(line, sizeof line, f)) { /* a flags line runs to a couple of thousand characters */
    if (strncmp(line, "flags", 5)) continue;
    char* value = strchr(line, ':');
    if (!value) break;
    value[strcspn(value, "\n")] = 0;
    snprintf(padded, sizeof padded, " %s ", value + 1);
    for (size_t i = 0; i < sizeof kFlags / sizeof kFlags[0]; ++i) {
      char word[32];
      snprintf(word, sizeof word, " %s ", kFlags[i][0]);
      if (!strstr(padded, word)) continue;
      size_t used = strlen(out);
      snprintf(out + used, size - used, "%s%s", used ? " " : "", kFlags[i][1]);
    }
    break;
  }
  fclose(f);
}

static void json_string(FILE* f, const char* text) {
  fputc('"', f);
  for (const unsigned char* p = (const unsigned char*)text; *p; ++p) {
    if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
    else if (*p < 0x20) fprintf(f, "\\u%04x", *p);
    else fputc(*p, f);
  }
  fputc('"', f);
}

/* Every rank's host name, in rank order, as a JSON array. */
static void write_hosts(FILE* f) {
  char name[MPI_MAX_PROCESSOR_NAME] = {0};
  int length = 0;
  MPI_Get_processor_name(name, &length);
  char* all = rank_ == 0 ? checked_malloc((size_t)world_ * MPI_MAX_PROCESSOR_NAME) : NULL;
  check(MPI_Gather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, MPI_COMM_WORLD),
        "MPI_Gather (hosts)");
  if (rank_ != 0) return;
  fputc('[', f);
  for (int r = 0; r < world_; ++r) {
    if (r) fputs(", ", f);
    json_string(f, all + (size_t)r * MPI_MAX_PROCESSOR_NAME);
  }
  fputc(']', f);
  free(all);
}

static void write_environment(FILE* f) {
  char mpi[MPI_MAX_LIBRARY_VERSION_STRING] = {0}, cpu[256], vendor[64], family[16], number[16], isa[128], os[256],
       mem[64];
  int length = 0;
  MPI_Get_library_version(mpi, &length);
  mpi[strcspn(mpi, "\n,")] = 0; /* "Open MPI v4.1.4, package: ..." -> "Open MPI v4.1.4" */
  file_field("/proc/cpuinfo", "model name", cpu, sizeof cpu);
  file_field("/proc/cpuinfo", "vendor_id", vendor, sizeof vendor);
  file_field("/proc/cpuinfo", "cpu family", family, sizeof family);
  file_field("/proc/cpuinfo", "model\t", number, sizeof number); /* not "model name" */
  cpu_isa(isa, sizeof isa);
  char thp[32];
  thp_mode(thp, sizeof thp);
  /* Told by GLIBC_TUNABLES, glibc advises its heap and mapped blocks for huge pages itself. */
  const char* tunables = getenv("GLIBC_TUNABLES");
  const int huge = strcmp(thp, "never") && thp[0] && tunables &&
                   (strstr(tunables, "glibc.malloc.hugetlb=1") || strstr(tunables, "glibc.malloc.hugetlb=2"));
  file_field("/etc/os-release", "PRETTY_NAME", os, sizeof os);
  file_field("/proc/meminfo", "MemTotal", mem, sizeof mem);
  struct utsname u;
  uname(&u);
  char kernel[512];
  snprintf(kernel, sizeof kernel, "%s %s", u.sysname, u.release);
  fputs("{\"mpi\": ", f);
  json_string(f, mpi);
  fputs(", \"compiler\": ", f);
#if defined(__clang__)
  json_string(f, "clang " __clang_version__);
#elif defined(__GNUC__)
  json_string(f, "GCC " __VERSION__);
#else
  json_string(f, "unknown");
#endif
  fputs(", \"os\": ", f);
  json_string(f, os);
  fputs(", \"kernel\": ", f);
  json_string(f, kernel);
  fputs(", \"cpu_model\": ", f);
  json_string(f, cpu);
  fputs(", \"cpu_vendor\": ", f);
  json_string(f, vendor);
  if (family[0] && number[0]) fprintf(f, ", \"cpu_family\": %d, \"cpu_model_number\": %d", atoi(family), atoi(number));
  fputs(", \"cpu_isa\": ", f);
  json_string(f, isa);
  if (thp[0]) {
    fputs(", \"transparent_huge_pages\": ", f);
    json_string(f, thp);
  }
  fprintf(f, ", \"malloc_huge_pages\": %s", huge ? "true" : "false");
  fprintf(f, ", \"cpu_cores\": %ld, \"memory_mib\": %lld, \"threads_per_rank\": 1}", sysconf(_SC_NPROCESSORS_ONLN),
          atoll(mem) / 1024);
}

/* The thread level argv asks for (-1: none, MPI_Init), read before MPI starts, as the level is
 * chosen then (parse() reads the flags again after); an unknown name waits for parse() to say so. */
static int requested_thread_level(int argc, char** argv) {
  int level = -1;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--thread-multiple")) level = MPI_THREAD_MULTIPLE;
    else if (!strcmp(argv[i], "--thread-level") && i + 1 < argc) {
      const int named = thread_level_or_unknown(argv[++i]);
      if (named != -2) level = named;
    }
  }
  return level;
}

int main(int argc, char** argv) {
  const int level = requested_thread_level(argc, argv);
  if (level >= 0) {
    int provided = MPI_THREAD_SINGLE;
    MPI_Init_thread(&argc, &argv, level, &provided);
    if (provided < level) {
      fprintf(stderr, "mpi_collectives_peer: this MPI library does not provide thread level %s\n",
              thread_level_name(level));
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  } else {
    MPI_Init(&argc, &argv);
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &world_);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  struct config c;
  parse(argc, argv, &c);
  check_ops(&c);
  long long sizes[MAX_SIZES];
  const int n_sizes = message_sizes(&c, sizes);

  /* Rows go to a temporary file first: the result is written whole at the end. */
  FILE* rows = rank_ == 0 ? tmpfile() : NULL;
  if (rank_ == 0 && !rows) die("cannot create a temporary file for the rows");
  double total_wrong = 0;
  int first = 1;
  for (size_t k = 0; k < N_OPS; ++k) {
    const struct op* o = &OPS[k];
    if (!selected(&c, o->name)) continue;
    int placements[2], n_placements = 0;
    if (strcmp(c.placement, "out_of_place") && o->in_place) placements[n_placements++] = 1;
    if ((strcmp(c.placement, "in_place") || !o->in_place) && o->out_of_place) placements[n_placements++] = 0;
    if (!n_placements) placements[n_placements++] = o->in_place; /* its only form */
    int splits[2] = {0, 1}, n_splits = 1;
    if (o->splits) {
      if (!strcmp(c.split, "both")) n_splits = 2;
      else splits[0] = !strcmp(c.split, "uneven");
    }
    for (int si = 0; si < n_sizes; ++si)
      for (int pi = 0; pi < n_placements; ++pi)
        for (int sp = 0; sp < n_splits; ++sp) {
          const size_t floats = (size_t)sizes[si] / sizeof(float);
          size_t count = o->per_rank_blocks ? floats / (size_t)world_ : floats;
          struct shape s = {rank_, world_, placements[pi], splits[sp], count ? count : 1};
          total_wrong += measure(&c, o, &s, rows, first);
          first = 0;
        }
  }

  if (rank_ == 0) fflush(rows);
  FILE* out = NULL;
  char temporary[4200];
  if (rank_ == 0 && c.output[0]) {
    snprintf(temporary, sizeof temporary, "%s.tmp.%d", c.output, (int)getpid());
    out = fopen(temporary, "w");
    if (!out) die("cannot write the result file");
    fprintf(
        out,
        "{\"schema_version\": 1, \"benchmark\": \"comm\", \"implementation\": \"bare_mpi\", \"status\": \"%s\", "
        "\"backend\": \"mpi\", \"mpi_thread_level\": \"%s\", \"world_size\": %d, \"warmup\": %lld, \"iters\": %lld, "
        "\"timed_bytes\": %lld,\n  \"rows\": [",
        total_wrong > 0 ? "error" : "ok", thread_level_name(c.thread_level), world_, c.warmup, c.iters, c.timed_bytes);
    rewind(rows);
    char chunk[8192];
    for (size_t n; (n = fread(chunk, 1, sizeof chunk, rows)) > 0;) fwrite(chunk, 1, n, out);
    fputs("],\n  \"hosts\": ", out);
  }
  write_hosts(out);
  if (rank_ == 0 && out) {
    fputs(",\n  \"environment\": ", out);
    write_environment(out);
    if (total_wrong > 0)
      fprintf(out,
              ",\n  \"error\": {\"reason\": \"%.0f wrong values in collective outputs\", \"rank\": null, "
              "\"step\": null}",
              total_wrong);
    fputs("}\n", out);
    if (fclose(out) != 0 || rename(temporary, c.output) != 0) die("cannot write the result file");
  }
  if (rows) fclose(rows);
  MPI_Finalize();
  return total_wrong > 0 ? 1 : 0;
}
