// A plain main() for the fuzz targets, without libFuzzer (g++ builds, CI, the GPU machine):
//   target [options] FILE|DIR ...
// feeds every FILE, and every regular file of every DIR (not recursing, so DIR/open/ is not
// replayed; names starting with '.' and *.md skipped), in sorted order, to
// LLVMFuzzerTestOneInput. Options:
//   -runs=N            also feed N inputs of random bytes (lengths 0..max_len), made by the
//                      harness's counter-based generator (cases/rng.hpp) from -seed=S
//   -seed=S            (default 1)
//   -max_len=M         (default 1024)
//   -max_total_time=T  stop the random inputs after T seconds
//   -artifact_prefix=P where a random input that crashes is written (P + "crash-<run>")
//   -dict=FILE         a libFuzzer dictionary: about half of the random inputs get one to
//                      three of its entries spliced in (mostly at the tail, where
//                      FuzzedDataProvider reads its integers)
// A finding aborts (fuzz_finding.hpp); the signal handler first names the file being
// replayed, or writes the random input, so that it can be replayed and minimized. The
// target's LLVMFuzzerInitialize, if it defines one, runs first (as under libFuzzer).
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "cases/rng.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int* argc, char*** argv);

namespace {

namespace fs = std::filesystem;

// What the signal handler needs, prepared before each input (no allocation in the handler).
const uint8_t* g_data = nullptr;
size_t g_size = 0;
char g_label[4096];     // the file being replayed, or the random run
char g_artifact[4096];  // where to write a crashing random input ("" for files)

void write_all(int fd, const void* p, size_t n) {
  const char* c = static_cast<const char*>(p);
  while (n > 0) {
    const ssize_t w = write(fd, c, n);
    if (w <= 0) return;
    c += w;
    n -= static_cast<size_t>(w);
  }
}

// Says which input was running and keeps it, then dies of the same signal. A crash, and a
// run stopped from outside (a time limit's SIGTERM, an interrupt): a hang is found the same
// way as a crash.
void report_and_reraise(int sig, const char* what, std::size_t what_len) {
  write_all(2, what, what_len);
  write_all(2, g_label, strlen(g_label));
  if (g_artifact[0]) {
    const int fd = open(g_artifact, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      write_all(fd, g_data, g_size);
      close(fd);
      write_all(2, "; input written to ", 19);
      write_all(2, g_artifact, strlen(g_artifact));
    }
  }
  write_all(2, "\n", 1);
  signal(sig, SIG_DFL);
  raise(sig);
}

void on_crash(int sig) {
  static const char kCrash[] = "\n==== replay: crash while running ";
  report_and_reraise(sig, kCrash, sizeof kCrash - 1);
}

void on_stop(int sig) {
  static const char kStopped[] = "\n==== replay: stopped (signal) while running ";
  report_and_reraise(sig, kStopped, sizeof kStopped - 1);
}

void set_label(const std::string& label, const std::string& artifact) {
  snprintf(g_label, sizeof g_label, "%s", label.c_str());
  snprintf(g_artifact, sizeof g_artifact, "%s", artifact.c_str());
}

void run_one(const std::vector<uint8_t>& bytes) {
  g_data = bytes.data();
  g_size = bytes.size();
  LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
}

bool skipped_name(const fs::path& p) {
  const std::string name = p.filename().string();
  return name.empty() || name[0] == '.' || p.extension() == ".md";
}

std::vector<fs::path> inputs_of(const std::vector<std::string>& args) {
  std::vector<fs::path> files;
  for (const std::string& a : args) {
    const fs::path p(a);
    if (fs::is_directory(p)) {
      std::vector<fs::path> in_dir;
      for (const auto& e : fs::directory_iterator(p))
        if (e.is_regular_file() && !skipped_name(e.path())) in_dir.push_back(e.path());
      std::sort(in_dir.begin(), in_dir.end());
      files.insert(files.end(), in_dir.begin(), in_dir.end());
    } else if (fs::is_regular_file(p)) {
      files.push_back(p);
    } else {
      std::fprintf(stderr, "replay: no such file or directory: %s\n", a.c_str());
      std::exit(2);
    }
  }
  return files;
}

// The entries of a libFuzzer dictionary: the quoted part of each non-comment line, with
// \\, \" and \xNN escapes.
std::vector<std::string> read_dictionary(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "replay: cannot read dictionary %s\n", path.c_str());
    std::exit(2);
  }
  std::vector<std::string> entries;
  for (std::string line; std::getline(in, line);) {
    const auto first = line.find('"'), last = line.rfind('"');
    if (line.empty() || line[0] == '#' || first == std::string::npos || last <= first) continue;
    std::string e;
    for (std::size_t i = first + 1; i < last; ++i) {
      if (line[i] != '\\' || i + 1 >= last) { e += line[i]; continue; }
      if (line[i + 1] == 'x' && i + 3 < last) {
        e += static_cast<char>(std::stoi(line.substr(i + 2, 2), nullptr, 16));
        i += 3;
      } else {
        e += line[++i];
      }
    }
    entries.push_back(e);
  }
  return entries;
}

// Random bytes for run `n`, with dictionary entries spliced into about half of them.
std::vector<uint8_t> random_input(uint64_t seed, uint64_t n, uint64_t max_len, const std::vector<std::string>& dict) {
  const kda::rng::Counter r(seed, kda::rng::Stream::Adversarial, n);
  std::vector<uint8_t> bytes(r.below(0, max_len + 1));
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(r.bits(1 + i / 8) >> (8 * (i % 8)));
  if (dict.empty() || !r.bernoulli(~0ull, 0.5)) return bytes;
  const uint64_t count = 1 + r.below(~1ull, 3);
  for (uint64_t k = 0; k < count; ++k) {
    const std::string& e = dict[r.below(~(2ull + 3 * k), dict.size())];
    const bool tail = r.bernoulli(~(3ull + 3 * k), 0.75);
    const size_t at = tail ? bytes.size() : r.below(~(4ull + 3 * k), bytes.size() + 1);
    bytes.insert(bytes.begin() + static_cast<std::ptrdiff_t>(at), e.begin(), e.end());
  }
  return bytes;
}

bool option(const std::string& arg, const char* name, std::string& value) {
  const std::string prefix = std::string("-") + name + "=";
  if (arg.rfind(prefix, 0) != 0) return false;
  value = arg.substr(prefix.size());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
  uint64_t runs = 0, seed = 1, max_len = 1024;
  double max_time = 0;
  std::string prefix, v;
  std::vector<std::string> dict;
  std::vector<std::string> paths;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (option(a, "runs", v)) runs = std::stoull(v);
    else if (option(a, "seed", v)) seed = std::stoull(v);
    else if (option(a, "max_len", v)) max_len = std::stoull(v);
    else if (option(a, "max_total_time", v)) max_time = std::stod(v);
    else if (option(a, "artifact_prefix", v)) prefix = v;
    else if (option(a, "dict", v)) dict = read_dictionary(v);
    else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "replay: unknown option %s\n", a.c_str());
      return 2;
    } else paths.push_back(a);
  }
  for (int sig : {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL}) std::signal(sig, on_crash);
  for (int sig : {SIGTERM, SIGINT}) std::signal(sig, on_stop);
  // Progress reaches a log as it happens, also when stdout is a file.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);

  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  const std::vector<fs::path> files = inputs_of(paths);
  for (const fs::path& f : files) {
    std::ifstream in(f, std::ios::binary);
    const std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    set_label(f.string(), "");
    run_one(bytes);
  }
  const double t_files = std::chrono::duration<double>(Clock::now() - t0).count();
  std::printf("replay: %zu file input(s) in %.2f s\n", files.size(), t_files);

  uint64_t done = 0;
  const auto t1 = Clock::now();
  auto last_report = t1;
  for (; done < runs; ++done) {
    if (max_time > 0 && std::chrono::duration<double>(Clock::now() - t1).count() > max_time) break;
    if (Clock::now() - last_report > std::chrono::seconds(10)) {
      last_report = Clock::now();
      std::printf("replay: %llu of %llu random inputs done\n", static_cast<unsigned long long>(done),
                  static_cast<unsigned long long>(runs));
    }
    const std::vector<uint8_t> bytes = random_input(seed, done, max_len, dict);
    set_label("random input " + std::to_string(done) + " (-seed=" + std::to_string(seed) + ")",
              prefix + "crash-" + std::to_string(seed) + "-" + std::to_string(done));
    run_one(bytes);
  }
  if (runs > 0) {
    const double t = std::chrono::duration<double>(Clock::now() - t1).count();
    std::printf("replay: %llu random input(s) in %.2f s (%.1f exec/s)\n", static_cast<unsigned long long>(done), t,
                t > 0 ? done / t : 0.0);
  }
  return 0;
}
