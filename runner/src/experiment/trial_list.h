#pragma once
// The trials of a plan in run order, built one at a time when asked for. A plan of a million
// trials is a million small records (which combination, which repeat), not a million Trials.
#include <cstddef>
#include <iterator>
#include <memory>
#include <string>

#include "experiment/trial.h"

namespace mt {

// What a TrialList reads its trials from (the expanded studies, see matrix.cpp).
class TrialSource {
 public:
  virtual ~TrialSource() = default;
  virtual std::size_t size() const = 0;
  virtual Trial trial(std::size_t index) const = 0;  // index < size()
  virtual std::string identity(std::size_t index) const { return trial(index).identity; }
};

class TrialList {
 public:
  TrialList() = default;
  explicit TrialList(std::shared_ptr<const TrialSource> source) : source_(std::move(source)) {}

  std::size_t size() const { return source_ ? source_->size() : 0; }
  bool empty() const { return size() == 0; }
  // Built on each call: keep the Trial if it is needed twice.
  Trial operator[](std::size_t index) const { return source_->trial(index); }
  Trial front() const { return (*this)[0]; }
  Trial back() const { return (*this)[size() - 1]; }
  // trials[index].identity, without building the trial.
  std::string identity(std::size_t index) const { return source_->identity(index); }

  class const_iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = Trial;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = Trial;

    const_iterator(const TrialList* list, std::size_t index) : list_(list), index_(index) {}
    Trial operator*() const { return (*list_)[index_]; }
    const_iterator& operator++() {
      ++index_;
      return *this;
    }
    bool operator==(const const_iterator& other) const { return index_ == other.index_; }
    bool operator!=(const const_iterator& other) const { return index_ != other.index_; }

   private:
    const TrialList* list_;
    std::size_t index_;
  };
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size()}; }

 private:
  std::shared_ptr<const TrialSource> source_;
};

}  // namespace mt
