#include "runtime/cache.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>

#include <llvm/ADT/SmallString.h>
#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/SHA256.h>
#include <llvm/Support/xxhash.h>

#include "runtime/files.h"

namespace tj::rt {

namespace fs = llvm::sys::fs;

namespace {

// Bump when the key's inputs or the entry layout change: old entries then simply miss.
constexpr const char* kKeyFormat = "tilejit-compile-key-v2";  // v2: entries checksummed with XXH3
constexpr const char* kMetaHeader = "tilejit-cache-entry v1";

// Each field is length-prefixed so that ("ab","c") and ("a","bc") hash differently.
class Hasher {
public:
  void field(std::string_view s) {
    uint8_t len[8];
    uint64_t n = s.size();
    for (int i = 0; i < 8; ++i) len[i] = uint8_t(n >> (8 * i));
    sha_.update(llvm::ArrayRef<uint8_t>(len, 8));
    sha_.update(llvm::StringRef(s.data(), s.size()));
  }
  void count(size_t n) { field(std::to_string(n)); }
  std::string hex() { return llvm::toHex(sha_.final(), /*LowerCase=*/true); }

private:
  llvm::SHA256 sha_;
};

// An entry's checksum guards against damage, not attack (the key is the SHA-256): XXH3
// over the length-prefixed fields, so that a cache hit stays cheap (SHA-256 over a large
// kernel's PTX and cubin took a third of a GEMM's hit).
std::string checksum(const CompileResult& r) {
  std::string buf;
  buf.reserve(r.ptx.size() + r.cubin.size() + r.log.size() + 24);
  for (const std::string* f : {&r.ptx, &r.cubin, &r.log}) {
    const uint64_t n = f->size();
    for (int i = 0; i < 8; ++i) buf.push_back(char(uint8_t(n >> (8 * i))));
    buf += *f;
  }
  return "xxh3-" + llvm::utohexstr(llvm::xxh3_64bits(llvm::StringRef(buf)), /*LowerCase=*/true);
}

void warn(const std::string& message) {
  std::fprintf(stderr, "tilejit: warning: %s\n", message.c_str());
}

// The value after "<name> " on a line of `meta`, or "".
std::string meta_field(const std::string& meta, std::string_view name) {
  llvm::SmallVector<llvm::StringRef, 8> lines;
  llvm::StringRef(meta).split(lines, '\n');
  for (llvm::StringRef line : lines)
    if (line.consume_front(llvm::StringRef(name.data(), name.size())) && line.consume_front(" "))
      return line.str();
  return "";
}

} // namespace

struct Cache::State {
  std::atomic<bool> enabled{true};
  std::atomic<bool> warned{false};
};

Cache::Cache(std::string dir) : dir_(std::move(dir)), state_(std::make_shared<State>()) {
  if (dir_.empty()) {
    disable("no cache directory (set TILEJIT_CACHE_DIR or HOME)");
    return;
  }
  if (auto ec = files::make_private_dirs(dir_)) {
    disable("cannot create '" + dir_ + "': " + ec.message());
    return;
  }
  if (auto ec = fs::access(dir_, fs::AccessMode::Write))
    disable("cannot write to '" + dir_ + "': " + ec.message());
}

std::string cache_dir_from_env() {
  if (const char* dir = std::getenv("TILEJIT_CACHE_DIR"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return files::join(xdg, "tilejit");
  llvm::SmallString<256> home;
  if (llvm::sys::path::home_directory(home)) {
    llvm::sys::path::append(home, ".cache", "tilejit");
    return home.str().str();
  }
  return "";
}

Cache Cache::from_env() { return Cache(cache_dir_from_env()); }

std::string Cache::key_of(const CompileRequest& request) {
  Hasher h;
  h.field(kKeyFormat);
  h.field(request.kernel_name);
  h.field(request.source);
  h.count(request.headers.size());
  for (const Header& header : request.headers) {
    h.field(header.name);
    h.field(header.content);
  }
  h.field(nvrtc_version());
  h.field(request.arch);
  h.count(request.options.size());
  for (const std::string& option : request.options) h.field(option);
  return h.hex();
}

bool Cache::enabled() const { return state_->enabled.load(); }

std::string Cache::entry_dir(const std::string& key) const {
  return files::join(files::join(dir_, key.substr(0, 2)), key);
}

void Cache::disable(const std::string& why) const {
  state_->enabled = false;
  if (!state_->warned.exchange(true)) warn("compile cache disabled: " + why);
}

std::optional<CompileResult> Cache::lookup(const std::string& key) const {
  if (!enabled() || key.size() < 2) return std::nullopt;
  std::string entry = entry_dir(key);
  if (!fs::is_directory(entry)) return std::nullopt;

  // Entries appear by rename(), so a present entry should be whole; anything else is damage
  // (a truncated file, a disk error, a hand edit) and is removed so the next store can fix it.
  CompileResult result;
  std::string problem;
  auto meta = files::read(files::join(entry, "meta"));
  auto ptx = files::read(files::join(entry, "kernel.ptx"));
  auto cubin = files::read(files::join(entry, "kernel.cubin"));
  auto log = files::read(files::join(entry, "kernel.log"));
  if (!meta || !ptx || !cubin || !log) {
    problem = "a file is missing";
  } else if (llvm::StringRef(*meta).split('\n').first != kMetaHeader) {
    problem = "unknown format";
  } else {
    result.ptx = std::move(*ptx);
    result.cubin = std::move(*cubin);
    result.log = std::move(*log);
    result.kernel_name = meta_field(*meta, "kernel");
    if (meta_field(*meta, "checksum") != checksum(result)) problem = "checksum mismatch";
  }
  if (!problem.empty()) {
    warn("removing corrupt cache entry '" + entry + "' (" + problem + "); recompiling");
    fs::remove_directories(entry, /*IgnoreErrors=*/true);
    return std::nullopt;
  }
  result.key = key;
  result.from_cache = true;
  return result;
}

void Cache::store(const std::string& key, const CompileResult& result) {
  if (!enabled() || key.size() < 2) return;
  std::string entry = entry_dir(key);
  if (fs::is_directory(entry)) return; // already published (by us or another process)

  std::string temp;
  if (auto ec = files::make_unique_dir(dir_, ".tmp-", temp)) {
    disable("cannot create a temporary directory in '" + dir_ + "': " + ec.message());
    return;
  }
  // The kernel name is for people browsing the cache; the checksum is what lookup trusts.
  std::string meta = std::string(kMetaHeader) + "\nkernel " + files::safe_file_name(result.kernel_name) +
                     "\nchecksum " + checksum(result) + "\n";
  std::error_code ec;
  for (auto [name, content] : {std::pair<const char*, const std::string*>{"kernel.ptx", &result.ptx},
                               {"kernel.cubin", &result.cubin},
                               {"kernel.log", &result.log},
                               {"meta", &meta}}) {
    if (!ec) ec = files::write_atomic(files::join(temp, name), *content);
  }
  if (!ec) ec = files::make_private_dirs(files::join(dir_, key.substr(0, 2)));
  if (!ec) ec = fs::rename(temp, entry);
  if (ec) {
    fs::remove_directories(temp, /*IgnoreErrors=*/true);
    // rename() onto an existing, non-empty directory fails: another process won. Fine.
    if (!fs::is_directory(entry)) disable("cannot write entry '" + entry + "': " + ec.message());
  }
}

} // namespace tj::rt
