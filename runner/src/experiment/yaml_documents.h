#pragma once
// YAML::LoadFile reads a file's first document and drops the rest without a word, so an experiment
// with a stray `---` in it would silently lose everything after it. The file's events, read again,
// say whether anything follows the first document.
#include <optional>
#include <string>

#include "experiment/diagnostic.h"

namespace mt {

// Where what follows the file's first document starts: a second document's first node, text that
// is not YAML, or a third document; nullopt where nothing does (an empty document, a `---` last in
// the file, is nothing), or the file cannot be read or its first document parsed (the load says
// why).
std::optional<SourcePos> second_document(const std::string& file);

// What a loader says there, of a `kind` of file: "an experiment file", "a references file".
std::string second_document_problem(const std::string& kind = "an experiment file");

}  // namespace mt
