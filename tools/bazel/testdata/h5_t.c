#include <hdf5.h>
#include <stdio.h>
int main(void){unsigned a,b,c;H5get_libversion(&a,&b,&c);printf("hdf5 %u.%u.%u\n",a,b,c);return 0;}
