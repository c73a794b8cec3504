#include <mpi.h>
#include <stdio.h>
int main(int c, char**v){MPI_Init(&c,&v);int r;MPI_Comm_rank(MPI_COMM_WORLD,&r);printf("rank %d\n",r);MPI_Finalize();return 0;}
