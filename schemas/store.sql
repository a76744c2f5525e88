-- mtrun results store (PRAGMA user_version = its schema version).
-- The file is read in sections: everything before the first "-- @version" line creates schema
-- version 1; each "-- @version N" section takes a database from N-1 to N. A new database runs
-- them all; an older one, the sections it lacks, in one transaction. Sections are only ever
-- appended; a database newer than the binary is refused.

-- One campaign = one resolved plan of one experiment at one source revision.
CREATE TABLE campaigns (
  id              TEXT PRIMARY KEY,           -- hash of plan_hash, source_revision and launcher
  experiment      TEXT NOT NULL,              -- the experiment's name
  experiment_file TEXT NOT NULL,              -- absolute path when it was run
  source_revision TEXT NOT NULL,              -- git commit of the experiment's tree, or 'unknown'
  plan_hash       TEXT NOT NULL,
  launcher        TEXT NOT NULL,              -- JSON: launcher type, extra args, hostfile
  trial_count     INTEGER NOT NULL,
  created_at      TEXT NOT NULL               -- UTC, ISO 8601
);

-- One trial = one resolved parameter set and repeat index of a study: one MPI job per attempt.
CREATE TABLE trials (
  id           INTEGER PRIMARY KEY,
  campaign_id  TEXT NOT NULL REFERENCES campaigns(id),
  identity     TEXT NOT NULL,                 -- content hash of study, parameters, repeat index
  group_key    TEXT NOT NULL,                 -- the same without the repeat index
  ordinal      INTEGER NOT NULL,              -- position in the plan
  study        TEXT NOT NULL,
  workload     TEXT NOT NULL,
  strategy     TEXT,
  ranks        INTEGER NOT NULL,
  repeat_index INTEGER NOT NULL,
  parameters   TEXT NOT NULL,                 -- JSON object: every resolved parameter, and as env.NAME each environment variable set
  axes         TEXT NOT NULL,                 -- JSON array: the names of the study's axes
  spec         TEXT NOT NULL,                 -- JSON: everything needed to relaunch it (rerun)
  UNIQUE (campaign_id, identity)
);

-- Every launch of a trial. Written as 'running' before the launch, finished afterwards; earlier
-- attempts are never changed by a re-run.
CREATE TABLE attempts (
  id           INTEGER PRIMARY KEY,
  trial_id     INTEGER NOT NULL REFERENCES trials(id),
  attempt      INTEGER NOT NULL,               -- 1, 2, … per trial
  state        TEXT NOT NULL CHECK (state IN ('running', 'succeeded', 'failed', 'timed_out',
                                               'crashed', 'launch_failed', 'interrupted')),
  exit_code    INTEGER,
  signal       INTEGER,
  error_rank   INTEGER,
  error_step   INTEGER,
  error_reason TEXT,
  command      TEXT NOT NULL,                  -- exact command line, shell-quoted
  run_dir      TEXT NOT NULL,
  log_path     TEXT NOT NULL,
  started_at   TEXT NOT NULL,                  -- UTC, ISO 8601 to the millisecond (older rows: the second)
  finished_at  TEXT,
  duration_s   REAL,
  result_json  TEXT,                           -- the result file as written; non-finite numbers as null
  runner_host  TEXT NOT NULL,                  -- the mtrun that launched it, to tell a live
  runner_pid   INTEGER NOT NULL,               -- campaign from one whose runner was killed
  UNIQUE (trial_id, attempt)
);

-- Scalar metrics of an attempt: every number in the result JSON, nested names joined by '.'.
CREATE TABLE metrics (
  attempt_id INTEGER NOT NULL REFERENCES attempts(id),
  name       TEXT NOT NULL,
  value      REAL NOT NULL,
  PRIMARY KEY (attempt_id, name)
) WITHOUT ROWID;

-- Per-step series; rank is -1 for values already aggregated over ranks.
CREATE TABLE step_metrics (
  attempt_id INTEGER NOT NULL REFERENCES attempts(id),
  name       TEXT NOT NULL,
  rank       INTEGER NOT NULL,
  step       INTEGER NOT NULL,
  value      REAL NOT NULL,
  PRIMARY KEY (attempt_id, name, rank, step)
) WITHOUT ROWID;

-- Where an attempt's numbers came from (docs/provenance.md). complete = every required field present,
-- the experiment committed in a clean tree, the program built from a clean tree (and, when built from
-- the experiment's own repository, from the experiment's commit); otherwise missing_fields says what
-- is lacking.
CREATE TABLE provenance (
  attempt_id         INTEGER PRIMARY KEY REFERENCES attempts(id),
  source_commit      TEXT,                   -- git commit of the experiment's tree
  tree_dirty         INTEGER,                -- 1 if it had uncommitted changes
  diff_hash          TEXT,                   -- hash of `git diff HEAD` when dirty
  build_revision     TEXT,                   -- commit compiled into mtengine
  image_ref          TEXT,                   -- container image reference, from the docker wrapper
  image_id           TEXT,                   -- container image ID/digest
  base_image         TEXT,
  bare_metal         INTEGER NOT NULL,       -- 1 when not run in a container
  engine_binary_hash TEXT,                   -- hash of the mtengine binary (bare metal)
  software_stack     TEXT NOT NULL,          -- JSON object: libtorch, mpi, compiler, os, kernel, cpu_model, …
  hosts              TEXT NOT NULL,          -- JSON array of host names
  command            TEXT NOT NULL,          -- exact command line
  complete           INTEGER NOT NULL,
  missing_fields     TEXT NOT NULL           -- JSON array of field names; [] when complete
);

CREATE INDEX attempts_by_trial ON attempts(trial_id, attempt);
CREATE INDEX trials_by_campaign ON trials(campaign_id, ordinal);

-- The latest attempt of every trial: what `status` shows and what reports use.
CREATE VIEW latest_attempts AS
SELECT a.* FROM attempts a
WHERE a.attempt = (SELECT max(b.attempt) FROM attempts b WHERE b.trial_id = a.trial_id);

-- Training trials in wide form, one row per trial (its latest attempt).
CREATE VIEW training AS
SELECT t.campaign_id, c.experiment, t.identity AS trial, t.study, t.strategy, t.ranks, t.repeat_index,
       json_extract(t.parameters, '$.precision') AS precision,
       json_extract(t.parameters, '$.gradient_sync_mode') AS gradient_sync_mode,
       json_extract(t.parameters, '$.grad_accum_steps') AS grad_accum_steps,
       a.attempt, a.state, a.exit_code, a.duration_s,
       max(CASE WHEN m.name = 'tokens_per_sec' THEN m.value END) AS tokens_per_sec,
       max(CASE WHEN m.name = 'step_time_ms' THEN m.value END) AS step_time_ms,
       max(CASE WHEN m.name = 'data_time_ms' THEN m.value END) AS data_time_ms,
       max(CASE WHEN m.name = 'forward_backward_ms' THEN m.value END) AS forward_backward_ms,
       max(CASE WHEN m.name = 'optimizer_step_ms' THEN m.value END) AS optimizer_step_ms,
       max(CASE WHEN m.name = 'peak_memory_mb' THEN m.value END) AS peak_memory_mb,
       max(CASE WHEN m.name = 'loss' THEN m.value END) AS loss,
       max(CASE WHEN m.name = 'parameters' THEN m.value END) AS parameters,
       max(CASE WHEN m.name = 'collectives_per_step.sync_rounds' THEN m.value END) AS sync_rounds,
       max(CASE WHEN m.name = 'collectives_per_step.all_reduce' THEN m.value END) AS all_reduce_per_step
FROM trials t
JOIN campaigns c ON c.id = t.campaign_id
JOIN latest_attempts a ON a.trial_id = t.id
LEFT JOIN metrics m ON m.attempt_id = a.id
WHERE t.workload = 'train'
GROUP BY a.id;

-- @version 2
-- Which mtrun is running a campaign. A runner takes the lease in an immediate transaction before
-- it starts a trial and gives it back when it ends; a second runner of the campaign is refused,
-- naming the holder. A lease binds while its holder lives: on the same host, while its PID runs
-- with the recorded start time; from another host, until expires_at, which the holder renews.
CREATE TABLE leases (
  campaign_id  TEXT PRIMARY KEY,
  holder_host  TEXT NOT NULL,
  holder_pid   INTEGER NOT NULL,
  holder_start TEXT NOT NULL,                 -- start time of holder_pid (/proc/PID/stat), against recycled PIDs
  acquired_at  TEXT NOT NULL,                 -- UTC, ISO 8601
  expires_at   INTEGER NOT NULL               -- Unix time
);

-- @version 3
-- Chains: a study with `stages` runs them in order in one work directory, as one attempt of its
-- trial (trials.workload = 'chain'). Each stage's launch is a row here, linked to that attempt;
-- the attempt's state is the chain's verdict: succeeded only when every stage met its expectation,
-- otherwise failed, its error_reason naming the first stage that did not and why. The stages after
-- that one are not run. A re-run of the trial is a new attempt with a fresh work directory.
CREATE TABLE stages (
  id           INTEGER PRIMARY KEY,
  attempt_id   INTEGER NOT NULL REFERENCES attempts(id),
  position     INTEGER NOT NULL,               -- 1, 2, … in the chain
  name         TEXT NOT NULL,
  workload     TEXT NOT NULL,                  -- the study's workload, 'verify' or 'command'
  expected     TEXT NOT NULL,                  -- what the stage expects, in words
  expectation  TEXT NOT NULL,                  -- JSON: the same, as the experiment set it
  state        TEXT NOT NULL CHECK (state IN ('running', 'succeeded', 'failed', 'timed_out',
                                               'crashed', 'launch_failed', 'interrupted')),
  exit_code    INTEGER,
  signal       INTEGER,
  error_rank   INTEGER,
  error_step   INTEGER,
  error_reason TEXT,
  observed     TEXT,                           -- what happened, in the words of `expected`
  met          INTEGER,                        -- 1 when it met its expectation, 0 when not; NULL while running
  mismatch     TEXT,                           -- why it did not
  command      TEXT NOT NULL,                  -- exact command line, shell-quoted
  run_dir      TEXT NOT NULL,
  log_path     TEXT NOT NULL,
  started_at   TEXT NOT NULL,                  -- UTC, ISO 8601 to the millisecond (older rows: the second)
  finished_at  TEXT,
  duration_s   REAL,
  result_json  TEXT,                           -- the stage's result file as written
  UNIQUE (attempt_id, position)
);

-- The stages of every chain's latest attempt, with the chain's verdict.
CREATE VIEW chain_stages AS
SELECT t.campaign_id, t.identity AS trial, t.study, t.strategy, t.ranks, t.repeat_index,
       a.attempt, a.state AS verdict, s.position, s.name AS stage, s.workload, s.expected, s.state, s.observed,
       s.met, s.mismatch, s.exit_code, s.error_rank, s.error_step, s.duration_s
FROM trials t
JOIN latest_attempts a ON a.trial_id = t.id
JOIN stages s ON s.attempt_id = a.id
WHERE t.workload = 'chain';

-- @version 4
-- The rows of a result: the `rows` array a result may carry (mtengine comm writes one row per
-- collective, message size, placement and split; its peers write the same), each row a JSON
-- object, in the result's order. Bounded at ingest (README: hostile output).
CREATE TABLE result_rows (
  attempt_id INTEGER NOT NULL REFERENCES attempts(id),
  row_index  INTEGER NOT NULL,                -- 0, 1, … in the order of the result's `rows`
  data       TEXT NOT NULL,                   -- the row as written; non-finite numbers as null
  PRIMARY KEY (attempt_id, row_index)
) WITHOUT ROWID;

-- Collective measurements in wide form: one row per result row that names an operation, from
-- every trial's latest attempt (mtengine comm and the peers that write its rows). in_place and
-- unsupported are 0/1; a row a peer could not measure has unsupported = 1 and no numbers.
CREATE VIEW comm_rows AS
SELECT t.campaign_id, c.experiment, t.identity AS trial, t.study, t.workload, t.ranks, t.repeat_index,
       a.attempt, a.state, r.row_index,
       json_extract(r.data, '$.operation') AS operation,
       json_extract(r.data, '$.bytes') AS bytes,
       json_extract(r.data, '$.dtype') AS dtype,
       json_extract(r.data, '$.in_place') AS in_place,
       json_extract(r.data, '$.split') AS split,
       json_extract(r.data, '$.latency_us') AS latency_us,
       json_extract(r.data, '$.algbw_gbps') AS algbw_gbps,
       json_extract(r.data, '$.busbw_gbps') AS busbw_gbps,
       json_extract(r.data, '$.wrong_values') AS wrong_values,
       coalesce(json_extract(r.data, '$.unsupported'), 0) AS unsupported
FROM result_rows r
JOIN latest_attempts a ON a.id = r.attempt_id
JOIN trials t ON t.id = a.trial_id
JOIN campaigns c ON c.id = t.campaign_id
WHERE json_extract(r.data, '$.operation') IS NOT NULL;

-- @version 5
-- Files a trial left in its run directory that reports link to, kept with the attempt so a report
-- renders from the database alone: a profiled attempt's Chrome traces (profile/rank_00000.trace.json,
-- one per rank) and its profile summary (profile/profile.json). Kept for the first repeat of each
-- profiled configuration (repeat_index 0); every attempt keeps its own.
CREATE TABLE attempt_files (
  id         INTEGER PRIMARY KEY,
  attempt_id INTEGER NOT NULL REFERENCES attempts(id),
  name       TEXT NOT NULL,                   -- path relative to the attempt's run directory
  content    BLOB NOT NULL,
  UNIQUE (attempt_id, name)
);

-- @version 6
-- How a campaign ran and how its attempts' conditions are judged (docs/measurement.md). run_order is
-- 'interleaved' (every configuration once per round, in matrix order) or 'shuffled' (each round
-- permuted from seed); NULL for campaigns recorded before orders were (they ran interleaved).
-- measurement is JSON: {"conditions": the verdict's thresholds, "repeat": {study: {min, max,
-- target_ci_pct}}} for studies with adaptive repeats; NULL when not recorded.
ALTER TABLE campaigns ADD COLUMN run_order TEXT;
ALTER TABLE campaigns ADD COLUMN seed INTEGER;
ALTER TABLE campaigns ADD COLUMN measurement TEXT;

-- The machine while an attempt's job ran: read before, during (sampled) and after the job, without
-- privileges, from /proc and /sys. CPU times are seconds over the job's window; foreign_cpu_pct is
-- what processes other than the job and mtrun used, in % of one core. NULL: not readable here.
CREATE TABLE attempt_conditions (
  attempt_id            INTEGER PRIMARY KEY REFERENCES attempts(id),
  wall_s                REAL NOT NULL,       -- the job's window, launch to the end of its wait
  cpus                  INTEGER NOT NULL,    -- logical CPUs (/proc/stat)
  busy_cpu_s            REAL NOT NULL,       -- CPU time everything used (/proc/stat, steal excluded)
  job_cpu_s             REAL NOT NULL,       -- the job's processes (getrusage RUSAGE_CHILDREN)
  runner_cpu_s          REAL NOT NULL,       -- mtrun itself, its sampler included (RUSAGE_SELF)
  foreign_cpu_pct       REAL NOT NULL,       -- (busy − job − runner) ÷ wall, in % of one core
  steal_pct             REAL,                -- time the hypervisor took, in % of all CPUs' time
  context_switches      INTEGER,             -- machine-wide, in the window
  load1_before          REAL,                -- 1-minute load average
  load1_after           REAL,
  load1_max             REAL,                -- the largest sampled
  cpu_mhz_min           REAL,                -- mean clock over CPUs, smallest and largest sampled
  cpu_mhz_max           REAL,
  cpu_pressure_pct      REAL,                -- /proc/pressure/cpu "some": share of the window a task waited for a CPU
  memory_pressure_pct   REAL,                -- /proc/pressure/memory "some"
  mem_available_mib_min REAL,                -- smallest MemAvailable sampled
  calibration_gflops    REAL,                -- the engine's SGEMM calibration, GFLOP/s per thread, when it ran one
  samples               TEXT NOT NULL,       -- JSON array: {t, load1, cpu_mhz, mem_available_mib} every sample
  verdict               TEXT NOT NULL CHECK (verdict IN ('quiet', 'disturbed')),
  reasons               TEXT NOT NULL        -- JSON array of reasons in words; [] when quiet
);

-- Every attempt's conditions and verdict with its trial.
CREATE VIEW conditions AS
SELECT t.campaign_id, t.identity AS trial, t.study, t.group_key, t.repeat_index, a.attempt, a.state,
       ac.verdict, ac.reasons, ac.wall_s, ac.cpus, ac.busy_cpu_s, ac.job_cpu_s, ac.runner_cpu_s,
       ac.foreign_cpu_pct, ac.steal_pct, ac.context_switches, ac.load1_before, ac.load1_after, ac.load1_max,
       ac.cpu_mhz_min, ac.cpu_mhz_max, ac.cpu_pressure_pct, ac.memory_pressure_pct, ac.mem_available_mib_min,
       ac.calibration_gflops, ac.attempt_id
FROM attempt_conditions ac
JOIN attempts a ON a.id = ac.attempt_id
JOIN trials t ON t.id = a.trial_id;

-- @version 7
-- Named baselines: a campaign later ones are compared with (`mtrun baseline set NAME CAMPAIGN`,
-- `mtrun compare --baseline NAME`). Setting a name again points it at the new campaign.
CREATE TABLE baselines (
  name        TEXT PRIMARY KEY,
  campaign_id TEXT NOT NULL REFERENCES campaigns(id),
  set_at      TEXT NOT NULL                   -- UTC, ISO 8601
);

-- @version 8
-- The experiment's own source and the build of the program it drove, as separate facts
-- (docs/provenance.md). source_repository: the git repository holding the experiment file — its
-- origin remote without credentials, or else its top-level path; '' when the experiment is in no
-- repository. build_tree_dirty: 1 when the program reported it was built from a tree with
-- uncommitted changes, 0 from a clean one. Both NULL when not recorded (older attempts; a program
-- that does not say).
ALTER TABLE provenance ADD COLUMN source_repository TEXT;
ALTER TABLE provenance ADD COLUMN build_tree_dirty INTEGER;

-- @version 9
-- Restarts: a study with `restart: {max, resume}` relaunches a job that crashed, failed (not on bad
-- input) or timed out from the newest READY checkpoint of its checkpoint_dir, within the same
-- attempt (or stage of a chain), without the injected faults. Every launch of such a job is a row
-- here, in order; the last one's end is the attempt's (stage's) outcome, its duration all of them.
-- reached_step: the steps the launch had completed (the engine's --progress-file); resumed_from_step:
-- where it began (NULL: step 0); lost_steps: what the next launch computed again (reached_step
-- minus the next launch's resumed_from_step); recovery_s: from this launch's last progress until the
-- next had reached_step steps done again, both read from the engine's progress file: the step cut
-- short, the job's teardown, the relaunch's start-up and checkpoint load, and the recomputed steps
-- (NULL when the next launch never got that far).
CREATE TABLE launches (
  id                INTEGER PRIMARY KEY,
  attempt_id        INTEGER NOT NULL REFERENCES attempts(id),
  stage_id          INTEGER REFERENCES stages(id),     -- NULL: the trial's own job
  launch            INTEGER NOT NULL,                  -- 1, 2, …
  state             TEXT NOT NULL CHECK (state IN ('succeeded', 'failed', 'timed_out', 'crashed',
                                                    'launch_failed', 'interrupted')),
  exit_code         INTEGER,
  signal            INTEGER,
  error_rank        INTEGER,
  error_step        INTEGER,
  error_reason      TEXT,
  duration_s        REAL NOT NULL,
  reached_step      INTEGER,
  resumed_from_step INTEGER,
  lost_steps        INTEGER,
  recovery_s        REAL,
  log_path          TEXT NOT NULL
);
CREATE INDEX launches_by_attempt ON launches (attempt_id);

-- The launches of every trial's latest attempt, with the stage they belong to (NULL: the trial's own).
CREATE VIEW restarts AS
SELECT t.campaign_id, t.identity AS trial, t.study, t.strategy, t.ranks, t.repeat_index, a.attempt,
       a.state AS verdict, s.name AS stage, l.launch, l.state, l.exit_code, l.signal, l.error_rank,
       l.error_step, l.error_reason, l.duration_s, l.reached_step, l.resumed_from_step, l.lost_steps,
       l.recovery_s, l.log_path
FROM trials t
JOIN latest_attempts a ON a.trial_id = t.id
JOIN launches l ON l.attempt_id = a.id
LEFT JOIN stages s ON s.id = l.stage_id;

-- @version 10
-- The training view says what ran even where the experiment left it at the engine's default
-- (precision, sync mode and accumulation steps from the result when the trial's parameters do not
-- set them), names the attempt row (attempt_id, for joins with metrics, step_metrics and
-- provenance), and gives the model state one rank holds: parameters, gradients at their peak,
-- optimizer state and the full parameters a sharded strategy gathers beside its shard, and their
-- sum. memory.peak_full_parameter_bytes is not a part of it: for DDP it is the parameters again.
DROP VIEW training;
CREATE VIEW training AS
SELECT t.campaign_id, c.experiment, t.identity AS trial, t.study, t.strategy, t.ranks, t.repeat_index,
       coalesce(json_extract(t.parameters, '$.precision'), json_extract(a.result_json, '$.precision')) AS precision,
       coalesce(json_extract(t.parameters, '$.gradient_sync_mode'),
                json_extract(a.result_json, '$.gradient_sync_mode')) AS gradient_sync_mode,
       coalesce(json_extract(t.parameters, '$.grad_accum_steps'),
                json_extract(a.result_json, '$.gradient_accumulation_steps')) AS grad_accum_steps,
       a.id AS attempt_id, a.attempt, a.state, a.exit_code, a.duration_s,
       max(CASE WHEN m.name = 'tokens_per_sec' THEN m.value END) AS tokens_per_sec,
       max(CASE WHEN m.name = 'step_time_ms' THEN m.value END) AS step_time_ms,
       max(CASE WHEN m.name = 'data_time_ms' THEN m.value END) AS data_time_ms,
       max(CASE WHEN m.name = 'forward_backward_ms' THEN m.value END) AS forward_backward_ms,
       max(CASE WHEN m.name = 'optimizer_step_ms' THEN m.value END) AS optimizer_step_ms,
       max(CASE WHEN m.name = 'peak_memory_mb' THEN m.value END) AS peak_memory_mb,
       max(CASE WHEN m.name = 'loss' THEN m.value END) AS loss,
       max(CASE WHEN m.name = 'parameters' THEN m.value END) AS parameters,
       max(CASE WHEN m.name = 'collectives_per_step.sync_rounds' THEN m.value END) AS sync_rounds,
       max(CASE WHEN m.name = 'collectives_per_step.all_reduce' THEN m.value END) AS all_reduce_per_step,
       max(CASE WHEN m.name = 'memory.parameter_bytes' THEN m.value END) AS parameter_bytes,
       coalesce(max(CASE WHEN m.name = 'memory.peak_gradient_bytes' THEN m.value END),
                max(CASE WHEN m.name = 'memory.gradient_bytes' THEN m.value END)) AS gradient_bytes,
       max(CASE WHEN m.name = 'memory.optimizer_state_bytes' THEN m.value END) AS optimizer_state_bytes,
       max(CASE WHEN m.name = 'memory.gathered_parameter_bytes' THEN m.value END) AS gathered_parameter_bytes,
       max(CASE WHEN m.name = 'memory.parameter_bytes' THEN m.value END)
         + coalesce(max(CASE WHEN m.name = 'memory.peak_gradient_bytes' THEN m.value END),
                    max(CASE WHEN m.name = 'memory.gradient_bytes' THEN m.value END))
         + max(CASE WHEN m.name = 'memory.optimizer_state_bytes' THEN m.value END)
         + coalesce(max(CASE WHEN m.name = 'memory.gathered_parameter_bytes' THEN m.value END), 0)
         AS model_state_bytes
FROM trials t
JOIN campaigns c ON c.id = t.campaign_id
JOIN latest_attempts a ON a.trial_id = t.id
LEFT JOIN metrics m ON m.attempt_id = a.id
WHERE t.workload = 'train'
GROUP BY a.id;

-- @version 11
-- What mtrun did just before launching an attempt (docs/measurement.md, "Before timing" and
-- "Settling between trials"): settle_s, the seconds it waited with nothing of ours running
-- (`run --settle`); quiet_wait_s, the seconds it spent looking for a quiet machine (`run
-- --wait-quiet`), its first 1-s look included; quiet_found, what the last look found: 'quiet', or
-- 'busy' when the machine was still busy as the wait ran out. NULL where mtrun did not do it (no
-- such flag, trials run in parallel, attempts recorded before version 11); quiet_found also where
-- /proc/stat could not be read. The conditions view shows them beside the attempt's verdict.
ALTER TABLE attempts ADD COLUMN settle_s REAL;
ALTER TABLE attempts ADD COLUMN quiet_wait_s REAL;
ALTER TABLE attempts ADD COLUMN quiet_found TEXT CHECK (quiet_found IN ('quiet', 'busy'));

DROP VIEW conditions;
CREATE VIEW conditions AS
SELECT t.campaign_id, t.identity AS trial, t.study, t.group_key, t.repeat_index, a.attempt, a.state,
       ac.verdict, ac.reasons, a.settle_s, a.quiet_wait_s, a.quiet_found, ac.wall_s, ac.cpus, ac.busy_cpu_s,
       ac.job_cpu_s, ac.runner_cpu_s, ac.foreign_cpu_pct, ac.steal_pct, ac.context_switches, ac.load1_before,
       ac.load1_after, ac.load1_max, ac.cpu_mhz_min, ac.cpu_mhz_max, ac.cpu_pressure_pct, ac.memory_pressure_pct,
       ac.mem_available_mib_min, ac.calibration_gflops, ac.attempt_id
FROM attempt_conditions ac
JOIN attempts a ON a.id = ac.attempt_id
JOIN trials t ON t.id = a.trial_id;

-- @version 12
-- job_ranks_here: how many of the attempt's ranks ran on mtrun's own host, by the hostnames its
-- result names (`hosts`); NULL where the result does not say (a command workload, a failed
-- launch, attempts recorded before version 12). Where it is 0 the job ran on other hosts (a
-- cluster's compute nodes, mtrun on a login node): the row's CPU figures describe mtrun's host,
-- not the job's, and were not judged; the verdict rests on what the ranks measured themselves
-- (calibration, memory bandwidth, all-reduce latency, per-step times).
ALTER TABLE attempt_conditions ADD COLUMN job_ranks_here INTEGER;

DROP VIEW conditions;
CREATE VIEW conditions AS
SELECT t.campaign_id, t.identity AS trial, t.study, t.group_key, t.repeat_index, a.attempt, a.state,
       ac.verdict, ac.reasons, a.settle_s, a.quiet_wait_s, a.quiet_found, ac.job_ranks_here, ac.wall_s, ac.cpus,
       ac.busy_cpu_s, ac.job_cpu_s, ac.runner_cpu_s, ac.foreign_cpu_pct, ac.steal_pct, ac.context_switches,
       ac.load1_before, ac.load1_after, ac.load1_max, ac.cpu_mhz_min, ac.cpu_mhz_max, ac.cpu_pressure_pct,
       ac.memory_pressure_pct, ac.mem_available_mib_min, ac.calibration_gflops, ac.attempt_id
FROM attempt_conditions ac
JOIN attempts a ON a.id = ac.attempt_id
JOIN trials t ON t.id = a.trial_id;

-- @version 13
-- quiet_where: where the look for a quiet machine before the attempt was taken (docs/measurement.md,
-- "Where the look is taken"): 'runner_host', the host mtrun runs on (the local launcher, mpirun
-- without a hostfile); 'allocation_nodes', every node of the Slurm allocation mtrun runs in
-- (through srun); 'hostfile_hosts', every host of mpirun's hostfile; 'job_nodes', every node of
-- the attempt's own Slurm allocation, inside its job before its ranks started (srun outside an
-- allocation, sbatch). NULL where no look was taken (quiet_wait_s NULL), where the job ended
-- before its look was done, and for attempts recorded before version 13.
ALTER TABLE attempts ADD COLUMN quiet_where TEXT
  CHECK (quiet_where IN ('runner_host', 'allocation_nodes', 'hostfile_hosts', 'job_nodes'));

DROP VIEW conditions;
CREATE VIEW conditions AS
SELECT t.campaign_id, t.identity AS trial, t.study, t.group_key, t.repeat_index, a.attempt, a.state,
       ac.verdict, ac.reasons, a.settle_s, a.quiet_wait_s, a.quiet_found, a.quiet_where, ac.job_ranks_here,
       ac.wall_s, ac.cpus, ac.busy_cpu_s, ac.job_cpu_s, ac.runner_cpu_s, ac.foreign_cpu_pct, ac.steal_pct,
       ac.context_switches, ac.load1_before, ac.load1_after, ac.load1_max, ac.cpu_mhz_min, ac.cpu_mhz_max,
       ac.cpu_pressure_pct, ac.memory_pressure_pct, ac.mem_available_mib_min, ac.calibration_gflops, ac.attempt_id
FROM attempt_conditions ac
JOIN attempts a ON a.id = ac.attempt_id
JOIN trials t ON t.id = a.trial_id;

-- @version 14
-- The round trip of a cache line between mtrun's host's CPUs (ns; the largest over up to three pairs,
-- each the median of 15 timed batches), read just before the attempt's job started and just after it
-- ended (docs/measurement.md, "Conditions"): where a host moves or shares a VM's cores it reads
-- several times its usual figure, and every message between the job's ranks pays for it. NULL where
-- it was not read: trials run in parallel (it would slow the others), a single CPU, a CPU another
-- process held for its whole budget, and attempts recorded before version 14.
ALTER TABLE attempt_conditions ADD COLUMN core_round_trip_ns_before REAL;
ALTER TABLE attempt_conditions ADD COLUMN core_round_trip_ns_after REAL;

DROP VIEW conditions;
CREATE VIEW conditions AS
SELECT t.campaign_id, t.identity AS trial, t.study, t.group_key, t.repeat_index, a.attempt, a.state,
       ac.verdict, ac.reasons, a.settle_s, a.quiet_wait_s, a.quiet_found, a.quiet_where, ac.job_ranks_here,
       ac.wall_s, ac.cpus, ac.busy_cpu_s, ac.job_cpu_s, ac.runner_cpu_s, ac.foreign_cpu_pct, ac.steal_pct,
       ac.context_switches, ac.load1_before, ac.load1_after, ac.load1_max, ac.cpu_mhz_min, ac.cpu_mhz_max,
       ac.cpu_pressure_pct, ac.memory_pressure_pct, ac.mem_available_mib_min, ac.calibration_gflops,
       ac.core_round_trip_ns_before, ac.core_round_trip_ns_after, ac.attempt_id
FROM attempt_conditions ac
JOIN attempts a ON a.id = ac.attempt_id
JOIN trials t ON t.id = a.trial_id;
