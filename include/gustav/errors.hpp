#pragma once
/// Exceptions thrown by Gustav. Every message starts with the function that
/// detected the fault ("gustav::multiply: ...") and says what is wrong.
#include <stdexcept>
#include <string>

namespace gustav {

/// A matrix or argument violates a documented precondition (shapes, CSR
/// structure, column indices out of range, a malformed file).
class invalid_input : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// A count (nnz(C), a row's products, a dimension) does not fit the index or
/// offset type in use. The message names the 64-bit type to switch to.
class overflow_error : public std::overflow_error {
 public:
  using std::overflow_error::overflow_error;
};

/// A device or host allocation failed. The message names the allocation and
/// its size; Gustav and Kokkos stay usable afterwards.
class allocation_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A symbolic plan was used with matrices whose structure differs from the
/// ones it was built for.
class plan_mismatch : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// A kernel detected a state that should be impossible (for instance a hash
/// table filled beyond its sizing). Reports a Gustav bug, never user error.
class internal_error : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

}  // namespace gustav
