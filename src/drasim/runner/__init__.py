"""Running scenario files: allocator calls with the in-use bookkeeping the conformance vectors expect."""
