/* What nccl-tests users pay to launch today: mpirun starts N processes, they
 * initialise MPI, meet at one barrier, and exit. Used by launch_benchmark.sh
 * as the reference for ebctl's time-to-first-result. */
#include <mpi.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
