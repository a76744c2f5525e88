// yaml-cpp reads an experiment file's first document and drops the rest without a word: anything
// after a second `---` is refused, where it starts, instead of being ignored.
#include <doctest/doctest.h>

#include "experiment/experiment_check.h"
#include "experiment/question_file.h"
#include "experiment/yaml_anchors.h"
#include "experiment/yaml_documents.h"

using namespace mt;

namespace {

std::string data(const std::string& name) { return std::string(MT_TEST_DATA_DIR) + "/" + name + ".yaml"; }

std::string problems_of(const std::string& name) { return format_diagnostics(check_experiment(data(name)).errors); }

}  // namespace

TEST_CASE("a second document in an experiment file is refused where it starts") {
  const std::string file = data("second_document");
  CHECK(problems_of("second_document") ==
        file +
            ":7:3: a second YAML document starts here (after a `---` line, or where a line is indented less than "
            "the file's first): an experiment file is one document, and this would be ignored\n" +
            "    - name: two\n" +  //
            "    ^");
}

TEST_CASE("report --questions refuses a second document too: questions there would be left unasked") {
  const QuestionFile questions = read_question_file(data("second_document"));
  REQUIRE(questions.errors.size() == 1);
  CHECK(questions.errors[0].pos.line == 7);
  CHECK(questions.errors[0].message.find("a second YAML document starts here") == 0);
  CHECK(questions.questions.empty());
}

TEST_CASE("text after a `---` on which yaml-cpp hands out empty documents for ever is refused, not looped on") {
  const std::string file = data("second_document_stray");
  const auto second = second_document(file);
  REQUIRE(second.has_value());
  CHECK(second->line == 3);
  CHECK(problems_of("second_document_stray").find(file + ":3:1: a second YAML document starts here") == 0);
  CHECK(aliased_anchors(file).empty());  // reads the first document alone, and returns
}

TEST_CASE("a line indented less than the file's first starts a second document, which is refused") {
  const auto second = second_document(data("second_document_indent"));
  REQUIRE(second.has_value());
  CHECK(second->line == 3);
  CHECK(second->column == 1);
}

TEST_CASE("document markers around one document, and a `---` with nothing after it, are one document") {
  CHECK_FALSE(second_document(data("document_markers")).has_value());
  CHECK(check_experiment(data("document_markers")).errors.empty());
  CHECK_FALSE(second_document(data("valid")).has_value());
  CHECK_FALSE(second_document(data("no_such_file")).has_value());
}
