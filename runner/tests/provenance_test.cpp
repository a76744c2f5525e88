// Provenance as the runner assembles it per attempt: every program is identified by its own
// content — mtengine by the campaign's engine hash, a command workload by its program and script.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "launch/provenance.h"

using namespace mt;

namespace {

std::filesystem::path scratch_file(const std::string& name, const std::string& text) {
  auto dir = std::filesystem::temp_directory_path() / ("mtrun_provenance_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / name, std::ios::binary) << text;
  return dir / name;
}

ProvenanceContext bare_metal_context(const std::filesystem::path& engine) {
  ProvenanceContext c;
  c.source.commit = "1111111111111111111111111111111111111111";
  c.engine = engine;
  c.engine_binary_hash = file_hash(engine);
  return c;
}

LaunchCommand mpirun_command(const std::vector<std::string>& program) {
  LaunchCommand cmd;
  cmd.argv = {"mpirun", "-np", "1", "-x", "OMP_NUM_THREADS=2"};
  cmd.argv.insert(cmd.argv.end(), program.begin(), program.end());
  cmd.environment = {{"OMP_NUM_THREADS", "2"}};
  cmd.argv_sets_environment = true;
  cmd.program = program;
  return cmd;
}

std::string result_with(const nlohmann::json& environment) {
  return nlohmann::json{{"status", "ok"}, {"hosts", {"node1"}}, {"environment", environment}}.dump();
}

}  // namespace

TEST_CASE("provenance: an engine trial is identified by the engine binary's hash") {
  auto engine = scratch_file("mtengine", "engine bytes");
  ProvenanceContext c = bare_metal_context(engine);
  auto cmd = mpirun_command({engine.string(), "train", "--output", "result.json"});
  ProgramIdentity program = trial_program(c, cmd.program, "/tmp");
  CHECK(program.program_hash == file_hash(engine));
  nlohmann::json env = {{"build_revision", c.source.commit},
                        {"libtorch", "2.5.0"},
                        {"mpi", "Open MPI 4.1.4"},
                        {"compiler", "gcc 12"},
                        {"os", "Debian 12"},
                        {"kernel", "Linux 6"},
                        {"cpu_model", "AMD EPYC"}};
  Provenance p = assemble_provenance(c, result_with(env), cmd, program);
  CHECK(p.complete);
  CHECK(p.context.engine_binary_hash == file_hash(engine));
  CHECK(p.command == "mpirun -np 1 -x OMP_NUM_THREADS=2 " + engine.string() + " train --output result.json");
  CHECK_FALSE(nlohmann::json::parse(p.software_stack).contains("program_hash"));
}

TEST_CASE("provenance: a command workload records its own program and script, never the engine's hash") {
  auto engine = scratch_file("mtengine", "engine bytes");
  auto interpreter = scratch_file("python3.11", "interpreter bytes");
  auto script = scratch_file("peer.py", "print('peer')");
  ProvenanceContext c = bare_metal_context(engine);
  auto cmd = mpirun_command({interpreter.string(), "-u", script.string(), "--output", "result.json"});
  ProgramIdentity program = trial_program(c, cmd.program, "/tmp");
  CHECK(program.program == interpreter.string());
  CHECK(program.script == script.string());
  CHECK(program.script_hash == file_hash(script));

  // A Python program must name its Python; os, kernel and CPU are the least any program reports.
  Provenance p = assemble_provenance(c, result_with({{"os", "Debian 12"}, {"kernel", "Linux 6"}}), cmd, program);
  CHECK(p.context.engine_binary_hash.empty());
  auto stack = nlohmann::json::parse(p.software_stack);
  CHECK(stack["program"] == interpreter.string());
  CHECK(stack["program_hash"] == file_hash(interpreter));
  CHECK(stack["script"] == script.string());
  CHECK(stack["script_hash"] == file_hash(script));
  CHECK(p.missing_fields == std::vector<std::string>{"software_stack.cpu_model", "software_stack.python"});
  CHECK_FALSE(p.complete);

  nlohmann::json env = {
      {"os", "Debian 12"}, {"kernel", "Linux 6"}, {"cpu_model", "AMD EPYC"}, {"python", "3.11.2"}, {"torch", "2.5.0"}};
  p = assemble_provenance(c, result_with(env), cmd, program);
  CHECK(p.missing_fields.empty());
  CHECK(p.complete);
}

TEST_CASE("provenance: a program that cannot be read is incomplete; a build from another repository is not") {
  auto engine = scratch_file("mtengine", "engine bytes");
  ProvenanceContext c = bare_metal_context(engine);
  auto cmd = mpirun_command({"/nonexistent/tool", "--size", "8"});
  ProgramIdentity program = trial_program(c, cmd.program, "/tmp");
  CHECK(program.program_hash.empty());
  CHECK(program.script.empty());
  nlohmann::json env = {{"os", "Debian 12"},
                        {"kernel", "Linux 6"},
                        {"cpu_model", "AMD EPYC"},
                        {"build_revision", "2222222222222222222222222222222222222222"}};
  // The context's source is no repository on this machine: the program's revision is not one of its
  // commits, so it need not equal the experiment's.
  Provenance p = assemble_provenance(c, result_with(env), cmd, program);
  CHECK(p.missing_fields == std::vector<std::string>{"program_hash"});
}

TEST_CASE("provenance: a program is found as its job would find it: on PATH, or relative to the run directory") {
  CHECK(resolve_on_path("sh").is_absolute());
  CHECK(resolve_on_path("./local/tool", "/runs/1") == "/runs/1/./local/tool");
  CHECK(resolve_on_path("no-such-program-anywhere") == "no-such-program-anywhere");
  // A relative script is the one in the run directory, where the job starts.
  auto script = scratch_file("relative.py", "print(1)");
  ProgramIdentity id = identify_program({"sh", "relative.py"}, script.parent_path());
  CHECK(id.script == script.string());
  CHECK(id.script_hash == file_hash(script));
  CHECK(identify_program({"sh", "relative.py"}, "/nonexistent").script.empty());
}

TEST_CASE("provenance: a container trial needs its image and base image, and overrides keep it incomplete") {
  auto engine = scratch_file("mtengine_in_image", "engine bytes");
  ProvenanceContext c = bare_metal_context(engine);
  c.engine_binary_hash.clear();
  c.image_ref = "registry.example/mtbench:abc";
  c.image_id = "sha256:0123";
  auto cmd = mpirun_command({engine.string(), "train"});
  ProgramIdentity program = trial_program(c, cmd.program, "/tmp");
  nlohmann::json env = {{"build_revision", c.source.commit},
                        {"libtorch", "2.15.0"},
                        {"mpi", "Open MPI 4.1.4"},
                        {"compiler", "gcc 12"},
                        {"os", "Ubuntu 24.04"},
                        {"kernel", "Linux 6"},
                        {"cpu_model", "Xeon"}};
  Provenance p = assemble_provenance(c, result_with(env), cmd, program);
  CHECK_FALSE(p.complete);
  CHECK(p.missing_fields == std::vector<std::string>{"base_image"});

  c.base_image = "nvidia/cuda@sha256:4567";
  p = assemble_provenance(c, result_with(env), cmd, program);
  CHECK(p.complete);

  c.overrides = {"dirty_tree", "image_revision_mismatch"};
  p = assemble_provenance(c, result_with(env), cmd, program);
  CHECK_FALSE(p.complete);
  CHECK(p.missing_fields == std::vector<std::string>{"override:dirty_tree", "override:image_revision_mismatch"});
}

TEST_CASE("provenance: an engine built from a tree with uncommitted changes is not complete") {
  auto engine = scratch_file("mtengine_dirty", "engine bytes");
  ProvenanceContext c = bare_metal_context(engine);
  auto cmd = mpirun_command({engine.string(), "train"});
  ProgramIdentity program = trial_program(c, cmd.program, "/tmp");
  nlohmann::json env = {{"build_revision", c.source.commit},
                        {"libtorch", "2.5.0"},
                        {"mpi", "Open MPI 4.1.4"},
                        {"compiler", "gcc 12"},
                        {"os", "Debian 12"},
                        {"kernel", "Linux 6"},
                        {"cpu_model", "AMD EPYC"}};
  CHECK(assemble_provenance(c, result_with(env), cmd, program).complete);
  env["build_tree_dirty"] = true;
  Provenance p = assemble_provenance(c, result_with(env), cmd, program);
  CHECK_FALSE(p.complete);
  CHECK(p.missing_fields == std::vector<std::string>{"clean_build"});
}

namespace {

// A fresh git repository holding an experiment file, with two commits; returns the first one.
std::string experiment_repository(const std::filesystem::path& dir) {
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string git = "git -C " + dir.string() + " -c user.name=t -c user.email=t@example.com ";
  auto commit = [&](const std::string& text) {
    std::ofstream(dir / "exp.yaml") << text;
    REQUIRE(std::system((git + "add exp.yaml && " + git + "commit -qm c").c_str()) == 0);
  };
  REQUIRE(std::system(("git init -q " + dir.string()).c_str()) == 0);
  commit("name: a\n");
  std::string first = inspect_source(dir).commit;
  commit("name: b\n");
  return first;
}

nlohmann::json engine_environment(const std::string& revision) {
  return {{"build_revision", revision}, {"libtorch", "2.5.0"}, {"mpi", "Open MPI 4.1.4"}, {"compiler", "gcc 12"},
          {"os", "Debian 12"},          {"kernel", "Linux 6"}, {"cpu_model", "AMD EPYC"}};
}

}  // namespace

TEST_CASE("provenance: the experiment's source and the engine's build are separate facts") {
  auto dir = std::filesystem::temp_directory_path() / ("mtrun_provenance_repo_" + std::to_string(::getpid()));
  const std::string older = experiment_repository(dir);
  auto engine = scratch_file("mtengine_release", "engine bytes");
  ProvenanceContext c = bare_metal_context(engine);
  c.source = inspect_source(dir);
  REQUIRE(c.source.commit.size() == 40);
  CHECK_FALSE(c.source.dirty);
  CHECK(c.source.toplevel == std::filesystem::canonical(dir));
  CHECK(c.source.repository == c.source.toplevel.string());  // no remote: its path
  auto cmd = mpirun_command({engine.string(), "train"});
  ProgramIdentity program = trial_program(c, cmd.program, "/tmp");
  const std::string release = "3333333333333333333333333333333333333333";  // a commit of another repository

  SUBCASE("a committed experiment driving a clean build of the engine from another repository is complete") {
    Provenance p = assemble_provenance(c, result_with(engine_environment(release)), cmd, program);
    CHECK(p.missing_fields.empty());
    CHECK(p.complete);
    CHECK(p.build_revision == release);
    CHECK_FALSE(p.build_tree_dirty.has_value());
  }
  SUBCASE("that build from a tree with uncommitted changes lacks a clean build only") {
    nlohmann::json env = engine_environment(release);
    env["build_tree_dirty"] = true;
    Provenance p = assemble_provenance(c, result_with(env), cmd, program);
    CHECK(p.missing_fields == std::vector<std::string>{"clean_build"});
    CHECK(p.build_tree_dirty == true);
  }
  SUBCASE("an engine built from another commit of the experiment's own repository must match it") {
    Provenance p = assemble_provenance(c, result_with(engine_environment(older)), cmd, program);
    CHECK(p.missing_fields == std::vector<std::string>{"build_revision_matches_source"});
    p = assemble_provenance(c, result_with(engine_environment(c.source.commit)), cmd, program);
    CHECK(p.complete);
  }
  SUBCASE("an experiment with uncommitted changes lacks a clean tree, whatever the engine") {
    std::ofstream(dir / "exp.yaml") << "name: changed\n";
    c.source = inspect_source(dir);
    CHECK(c.source.dirty);
    CHECK_FALSE(c.source.diff_hash.empty());
    Provenance p = assemble_provenance(c, result_with(engine_environment(release)), cmd, program);
    CHECK(p.missing_fields == std::vector<std::string>{"clean_tree"});
  }
  SUBCASE("a repository with a remote is named by it, without credentials") {
    REQUIRE(std::system(
                ("git -C " + dir.string() + " remote add origin https://u:secret@git.example/exp.git").c_str()) == 0);
    CHECK(inspect_source(dir).repository == "https://git.example/exp.git");
  }
  SUBCASE("an experiment in no repository lacks its source commit") {
    auto plain = std::filesystem::temp_directory_path() / ("mtrun_provenance_plain_" + std::to_string(::getpid()));
    std::filesystem::create_directories(plain);
    c.source = inspect_source(plain);
    CHECK(c.source.commit == "unknown");
    CHECK(c.source.repository.empty());
    Provenance p = assemble_provenance(c, result_with(engine_environment(release)), cmd, program);
    CHECK(p.missing_fields == std::vector<std::string>{"source_commit"});
    std::filesystem::remove_all(plain);
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("provenance: a repository's remote is recorded without credentials, and only commits are looked up") {
  CHECK(without_credentials("https://user:token@git.example/team/exp.git") == "https://git.example/team/exp.git");
  CHECK(without_credentials("https://git.example/team/exp.git") == "https://git.example/team/exp.git");
  CHECK(without_credentials("git@git.example:team/exp.git") == "git@git.example:team/exp.git");
  CHECK(without_credentials("https://git.example/a@b/exp.git") == "https://git.example/a@b/exp.git");
  SourceState outside;
  CHECK_FALSE(repository_has_commit(outside, "1111111111111111111111111111111111111111"));
  SourceState here;
  here.toplevel = "/";
  CHECK_FALSE(repository_has_commit(here, "--help"));
  CHECK_FALSE(repository_has_commit(here, "HEAD"));
}
