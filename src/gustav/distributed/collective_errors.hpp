#pragma once
/// Errors that end every rank alike. A step that can fail on some ranks only
/// (a malformed local block, an allocation) runs inside all_or_none: no rank
/// leaves it while another waits in a later collective, and every rank
/// throws the same exception type with the same message, that of the lowest
/// failing rank, naming it. Steps inside must not communicate.
#include <mpi.h>

#include <exception>
#include <string>
#include <vector>

#include "gustav/errors.hpp"

namespace gustav::distributed::detail {

enum class ErrorKind : int { none = 0, invalid_input, plan_mismatch, overflow, allocation, internal, other };

[[noreturn]] inline void throw_kind(ErrorKind kind, const std::string& message) {
  switch (kind) {
    case ErrorKind::invalid_input: throw invalid_input(message);
    case ErrorKind::plan_mismatch: throw plan_mismatch(message);
    case ErrorKind::overflow: throw overflow_error(message);
    case ErrorKind::allocation: throw allocation_error(message);
    case ErrorKind::internal: throw internal_error(message);
    default: throw std::runtime_error(message);
  }
}

inline int comm_rank(MPI_Comm comm) {
  int r = 0;
  MPI_Comm_rank(comm, &r);
  return r;
}

inline int comm_size(MPI_Comm comm) {
  int s = 1;
  MPI_Comm_size(comm, &s);
  return s;
}

/// Every rank throws `kind` with the message of the lowest rank whose
/// `failed` is set; returns on every rank when none is. Collective.
inline void agree_on_failure(MPI_Comm comm, ErrorKind kind, const std::string& message) {
  const int size = comm_size(comm);
  const int mine = kind == ErrorKind::none ? size : comm_rank(comm);
  int first = size;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
  if (first == size) return;
  int header[2] = {static_cast<int>(kind), static_cast<int>(message.size())};
  MPI_Bcast(header, 2, MPI_INT, first, comm);
  std::string text(static_cast<std::size_t>(header[1]), ' ');
  if (comm_rank(comm) == first) text = message;
  MPI_Bcast(text.data(), header[1], MPI_CHAR, first, comm);
  throw_kind(static_cast<ErrorKind>(header[0]), text);
}

/// Runs `step` on every rank, then agrees: if it threw anywhere, every rank
/// throws the lowest failing rank's error, its message led by `who` (unless
/// it names a gustav:: function already) and ended by "(on rank R)".
/// Collective.
template <class Step>
void all_or_none(MPI_Comm comm, const char* who, Step&& step) {
  ErrorKind kind = ErrorKind::none;
  std::string what;
  try {
    step();
  } catch (const plan_mismatch& e) {
    kind = ErrorKind::plan_mismatch, what = e.what();
  } catch (const invalid_input& e) {
    kind = ErrorKind::invalid_input, what = e.what();
  } catch (const overflow_error& e) {
    kind = ErrorKind::overflow, what = e.what();
  } catch (const allocation_error& e) {
    kind = ErrorKind::allocation, what = e.what();
  } catch (const internal_error& e) {
    kind = ErrorKind::internal, what = e.what();
  } catch (const std::exception& e) {
    kind = ErrorKind::other, what = e.what();
  }
  std::string message;
  if (kind != ErrorKind::none) {
    // Gustav's own messages name their function already.
    message = (what.rfind("gustav::", 0) == 0 ? what : std::string(who) + ": " + what) + " (on rank " +
              std::to_string(comm_rank(comm)) + ")";
  }
  agree_on_failure(comm, kind, message);
}

/// Throws `kind` with `message` on every rank when `condition` holds on any.
/// For conditions every rank evaluates alike the message is the same
/// everywhere; otherwise the lowest such rank's is taken. Collective.
inline void fail_together(MPI_Comm comm, bool condition, ErrorKind kind, const std::string& message) {
  agree_on_failure(comm, condition ? kind : ErrorKind::none, condition ? message : std::string());
}

}  // namespace gustav::distributed::detail
