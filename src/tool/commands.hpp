#pragma once
// The tool's subcommands; each returns the process exit code.
namespace gustav::tool {

int multiply_command(int argc, char** argv);
int info_command(int argc, char** argv);
int bench_command(int argc, char** argv);
int spmv_command(int argc, char** argv);

}  // namespace gustav::tool
