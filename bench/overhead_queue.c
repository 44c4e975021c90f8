/* Launch + aclrtSynchronizeStream of a tiny Add (16 floats), 20000 times: compare PYACLNN_SYNC=1 with PYACLNN_ASYNC=1.
 * Build: cc -O2 -Iinclude bench/overhead_queue.c -Lbuild/lib -lpyaclnn -Wl,-rpath,$PWD/build/lib */
#include <stdio.h>
#include <time.h>
#include "acl/acl.h"
#include "aclnnop/aclnn_add.h"
int main(void){
  aclInit(NULL); aclrtSetDevice(0); aclrtStream s; aclrtCreateStream(&s);
  int64_t sh[1]={16}, st[1]={1}; void *x,*o; aclrtMalloc(&x,64,0); aclrtMalloc(&o,64,0); aclrtMemset(x,64,0,64);
  aclTensor *tx=aclCreateTensor(sh,1,ACL_FLOAT,st,0,ACL_FORMAT_ND,sh,1,x), *to=aclCreateTensor(sh,1,ACL_FLOAT,st,0,ACL_FORMAT_ND,sh,1,o);
  float one=1; aclScalar *a=aclCreateScalar(&one,ACL_FLOAT);
  struct timespec t0,t1; int N=20000; clock_gettime(CLOCK_MONOTONIC,&t0);
  for(int i=0;i<N;i++){uint64_t ws; aclOpExecutor*ex; aclnnAddGetWorkspaceSize(tx,tx,a,to,&ws,&ex); aclnnAdd(NULL,0,ex,s); aclrtSynchronizeStream(s);}
  clock_gettime(CLOCK_MONOTONIC,&t1);
  printf("%.2f us per op+sync\n", ((t1.tv_sec-t0.tv_sec)*1e9+(t1.tv_nsec-t0.tv_nsec))/1e3/N);
  return 0;}
