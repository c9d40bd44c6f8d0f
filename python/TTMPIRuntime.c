/*===- TTMPIRuntime.c - What compiled code and Python need from MPI -------===
 *
 * libTinyTensorMPI.so, loaded by tinytensor.distributed (with RTLD_GLOBAL,
 * so that compiled code finds MPI and these functions in the process):
 *
 *  - tt_mpi_comm_split_once takes the place of MPI_Comm_split in compiled
 *    code (--tt-mpi-runtime-calls). MLIR 22's lowering of shard.all_reduce
 *    splits a new communicator at every call and never frees it; here each
 *    call site's communicator is made once.
 *  - tt_mpi_init / tt_mpi_finalize / tt_mpi_rank / tt_mpi_size /
 *    tt_mpi_barrier / tt_mpi_communicators for Python (ctypes).
 *
 * MPI is called from the thread that runs compiled code (never from inside
 * its OpenMP regions): MPI_THREAD_FUNNELED.
 *
 *===----------------------------------------------------------------------===*/

#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>

/* Communicators made by tt_mpi_comm_split_once: freed at finalize. */
static MPI_Comm *made;
static int numMade, capacity;

/* MPI_Comm_split once per call site of compiled code: `slot` is that call
 * site's global (0 at first; then the index of its communicator in `made`,
 * plus one). Every process runs the same program, so all of them reach a
 * call site's first call together, as the collective split needs. */
int tt_mpi_comm_split_once(int64_t *slot, MPI_Comm parent, int color, int key,
                           MPI_Comm *comm) {
  if (*slot > 0) {
    *comm = made[*slot - 1];
    return MPI_SUCCESS;
  }
  int rc = MPI_Comm_split(parent, color, key, comm);
  if (rc != MPI_SUCCESS)
    return rc;
  if (numMade == capacity) {
    int grown = capacity ? 2 * capacity : 8;
    MPI_Comm *more = realloc(made, (size_t)grown * sizeof(MPI_Comm));
    if (!more)
      return MPI_ERR_NO_MEM;
    made = more;
    capacity = grown;
  }
  made[numMade++] = *comm;
  *slot = numMade;
  return rc;
}

/* Communicators made by tt_mpi_comm_split_once so far (constant after the first
 * call of each compiled program: the check that nothing leaks). */
int tt_mpi_communicators(void) { return numMade; }

int tt_mpi_init(void) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized)
    return MPI_SUCCESS;
  int provided = 0;
  return MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided);
}

int tt_mpi_finalize(void) {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (!initialized || finalized)
    return MPI_SUCCESS;
  for (int i = 0; i < numMade; ++i)
    MPI_Comm_free(&made[i]);
  free(made);
  made = NULL;
  numMade = capacity = 0;
  return MPI_Finalize();
}

int tt_mpi_rank(void) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

int tt_mpi_size(void) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

int tt_mpi_barrier(void) { return MPI_Barrier(MPI_COMM_WORLD); }

/* The largest of `value` over all processes (for reports). */
double tt_mpi_max(double value) {
  double result = value;
  MPI_Allreduce(&value, &result, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return result;
}
