// Defaults of the sanitizer runtimes for the sanitized test binaries (read
// before main, so they cannot come from ctest properties reliably): report
// leaks, exit with an error code rather than abort, and print the stack of
// any undefined behaviour.
extern "C" const char* __asan_default_options() { return "detect_leaks=1:abort_on_error=0"; }
extern "C" const char* __ubsan_default_options() { return "print_stacktrace=1"; }
