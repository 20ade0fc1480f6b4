// The generator registry: every kernel generator a spec can name ("kernel": NAME),
// built-in samples and plugins' generators alike. Both register through the same
// Registrar, the API <tilejit/plugin.h> gives plugins. The process's registry, which
// holds the built-ins, is samples/builtin.h's registry().
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "generators/sample.h"

namespace tj::samples {

// A registration that cannot be accepted: a bad or duplicate name, parameters whose
// default lies outside their range, ... what() says which generator and why.
class RegistryError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What a registration function receives. add() takes the generator; the registry
// checks it when the whole registration has run, and takes all of it or none.
class Registrar {
 public:
  virtual ~Registrar() = default;
  virtual void add(std::unique_ptr<Sample> generator) = 0;
};

class Registry {
 public:
  // Runs `register_fn` on a Registrar, checks what it added, and appends it all, in
  // order, with `origin` ("built-in", or the plugin's path) — or, on a RegistryError
  // (a bad generator, a name already taken), nothing. Exceptions `register_fn` throws
  // pass through, and nothing is added then either.
  template <class Fn>
  void register_from(const std::string& origin, Fn&& register_fn) {
    Batch batch;
    register_fn(static_cast<Registrar&>(batch));
    commit(origin, std::move(batch.added));
  }

  // Generators in registration order: built-ins (the ladder) first, then plugins'.
  const std::vector<const Sample*>& all() const { return view_; }
  const Sample* find(const std::string& name) const;
  // "built-in" or the path of the plugin that registered `name`; "" when unknown.
  std::string origin_of(const std::string& name) const;

 private:
  struct Batch : Registrar {
    std::vector<std::unique_ptr<Sample>> added;
    void add(std::unique_ptr<Sample> g) override { added.push_back(std::move(g)); }
  };
  void commit(const std::string& origin, std::vector<std::unique_ptr<Sample>> added);

  std::vector<std::unique_ptr<Sample>> owned_;
  std::vector<std::string> origins_;
  std::vector<const Sample*> view_;
};

// What is wrong with a generator's name and parameters, or "" when nothing is: the
// checks commit() applies to every generator, built-in or not.
std::string generator_problem(const Sample& g);

}  // namespace tj::samples
