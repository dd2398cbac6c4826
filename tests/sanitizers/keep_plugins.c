// LD_PRELOADed into sanitized test runs (cmake/SlabTesting.cmake): dlclose does nothing, so the libraries a
// process loaded stay mapped until it exits. Open MPI 4.1 dlcloses its MCA plugins (and with them PMIx) at
// MPI_Finalize, before LeakSanitizer's exit-time check; their frames would then print as "<unknown module>",
// which no suppression in lsan.supp can name. Keeping them loaded costs nothing at exit.
int dlclose(void* handle) {
  (void)handle;
  return 0;
}
