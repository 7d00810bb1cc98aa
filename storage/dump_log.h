#pragma once
namespace skiff::storage {
// `skiff dump-log [--verify] PATH...`; returns the process exit code.
int dump_log_main(int argc, char** argv);
}  // namespace skiff::storage
