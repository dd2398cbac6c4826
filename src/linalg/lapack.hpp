#pragma once
/// @file lapack.hpp
/// @brief Private: the Fortran LAPACK routines linalg calls, declared directly (the build links LAPACK
/// through OpenBLAS, which does not ship the LAPACKE C wrappers). Column-major, arguments by pointer; the
/// trailing size_t arguments are the hidden lengths of character arguments (gfortran ABI).

#include <cstddef>

extern "C" {
void dgeqrt_(const int* m, const int* n, const int* nb, double* a, const int* lda, double* t, const int* ldt,
             double* work, int* info);
void dtpqrt_(const int* m, const int* n, const int* l, const int* nb, double* a, const int* lda, double* b,
             const int* ldb, double* t, const int* ldt, double* work, int* info);
void dpotrf_(const char* uplo, const int* n, double* a, const int* lda, int* info, std::size_t);
void dgemqrt_(const char* side, const char* trans, const int* m, const int* n, const int* k, const int* nb,
              const double* v, const int* ldv, const double* t, const int* ldt, double* c, const int* ldc, double* work,
              int* info, std::size_t, std::size_t);
void dgesdd_(const char* jobz, const int* m, const int* n, double* a, const int* lda, double* s, double* u,
             const int* ldu, double* vt, const int* ldvt, double* work, const int* lwork, int* iwork, int* info,
             std::size_t);
void dgeqrf_(const int* m, const int* n, double* a, const int* lda, double* tau, double* work, const int* lwork,
             int* info);
void dorgqr_(const int* m, const int* n, const int* k, double* a, const int* lda, const double* tau, double* work,
             const int* lwork, int* info);
}
