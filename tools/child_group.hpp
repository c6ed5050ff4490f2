// The child processes of `check --isolate`, each forked into a process group of its own, so
// that a helper process the backend starts (which inherits the result pipe, and may live for
// as long as it likes) is ended with the case. A child is judged by how it ended (its wait
// status) and by the report it wrote up to the end marker, never by the end of file on the
// pipe, which such a helper holds off. A child's whole group is killed when it ends, when it
// runs past its time, and when the run ends or leaves by an exception; a SIGINT, SIGTERM or
// SIGHUP to the parent (the children are outside its process group, so a terminal's Ctrl-C
// no longer reaches them) kills every child's group before the parent dies of the signal.
// Nothing the backend started is left running, unless it left the group itself (setsid).
#pragma once
#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

namespace kda::cli {

// Ends a child's report in the pipe: the report is one line of JSON.
inline constexpr char kEndOfReport = '\n';

class ChildGroups {
 public:
  struct Child {
    pid_t pid = -1;
    int fd = -1;           // the read end of the child's result pipe (non-blocking)
    bool at_eof = false;   // the pipe's write ends are all closed
    std::string data;      // what the child wrote so far
  };

  // Installs the signal handlers (for the signals not ignored); the destructor ends every
  // child left and restores them.
  ChildGroups();
  ~ChildGroups();
  ChildGroups(const ChildGroups&) = delete;
  ChildGroups& operator=(const ChildGroups&) = delete;

  // Forks a child in a new process group that runs body(write_fd), which must not return
  // (it ends with _exit); the child starts with the signal dispositions the parent had before
  // this object. Returns the child's index in children().
  std::size_t spawn(const std::function<void(int)>& body);

  std::vector<Child>& children() { return children_; }

  // Waits up to timeout_ms for output of any child, then appends what each pipe holds.
  void poll_output(int timeout_ms);
  // Whether child k has ended (it stays unreaped, so its group id cannot be reused).
  bool has_ended(std::size_t k) const;
  // Kills child k's whole group (SIGKILL); it ends soon after.
  void kill_group(std::size_t k) const;
  // Child k, which has ended: takes what is left in its pipe, kills what is left of its group,
  // reaps it, closes the pipe and removes it from children(). Returns its data and wait status.
  std::pair<std::string, int> collect(std::size_t k);

 private:
  std::vector<Child> children_;
};

}  // namespace kda::cli
