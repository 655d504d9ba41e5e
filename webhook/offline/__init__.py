"""The offline side: loading files, one result type, reporters, test suites and exit codes,
shared by `review`, `test` and `allocate`."""
