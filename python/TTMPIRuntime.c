/*===- TTMPIRuntime.c - What compiled code and Python need from MPI -------===
 *
 * libTinyTensorMPI.so, loaded by tinytensor.distributed (with RTLD_GLOBAL,
 * so that compiled code finds MPI and these functions in the process):
 *
 *  - tt_mpi_comm_split and tt_mpi_allreduce take the place of MPI_Comm_split
 *    and MPI_Allreduce in compiled code (--tt-mpi-runtime-calls). MLIR 22's
 *    lowering of shard.all_reduce splits a new communicator at every call
 *    and never frees it, and passes one buffer as both send and receive
 *    buffer; here each (parent, color, key) communicator is made once, and
 *    an aliased send buffer becomes MPI_IN_PLACE.
 *  - tt_mpi_init / tt_mpi_finalize / tt_mpi_rank / tt_mpi_size /
 *    tt_mpi_barrier / tt_mpi_communicators for Python (ctypes).
 *
 * MPI is called from the thread that runs compiled code (never from inside
 * its OpenMP regions): MPI_THREAD_FUNNELED.
 *
 *===----------------------------------------------------------------------===*/

#include <mpi.h>
#include <stdlib.h>

typedef struct {
  MPI_Comm parent;
  int color;
  int key;
  MPI_Comm comm;
} Split;

static Split *splits;
static int numSplits, capacity;

int tt_mpi_comm_split(MPI_Comm parent, int color, int key, MPI_Comm *comm) {
  for (int i = 0; i < numSplits; ++i) {
    if (splits[i].parent == parent && splits[i].color == color &&
        splits[i].key == key) {
      *comm = splits[i].comm;
      return MPI_SUCCESS;
    }
  }
  int rc = MPI_Comm_split(parent, color, key, comm);
  if (rc != MPI_SUCCESS)
    return rc;
  if (numSplits == capacity) {
    int grown = capacity ? 2 * capacity : 8;
    Split *more = realloc(splits, (size_t)grown * sizeof(Split));
    if (!more)
      return rc; /* still correct, only not cached */
    splits = more;
    capacity = grown;
  }
  splits[numSplits++] = (Split){parent, color, key, *comm};
  return rc;
}

int tt_mpi_allreduce(const void *send, void *recv, int count, MPI_Datatype type,
                     MPI_Op op, MPI_Comm comm) {
  if (send == recv)
    send = MPI_IN_PLACE;
  return MPI_Allreduce(send, recv, count, type, op, comm);
}

/* Communicators made by tt_mpi_comm_split so far (constant after the first
 * call of each compiled program: the check that nothing leaks). */
int tt_mpi_communicators(void) { return numSplits; }

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
  for (int i = 0; i < numSplits; ++i)
    MPI_Comm_free(&splits[i].comm);
  free(splits);
  splits = NULL;
  numSplits = capacity = 0;
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
