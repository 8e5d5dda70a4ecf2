"""Where objects come from: files, directories, stdin, scenario files (and, later, a live cluster)."""
