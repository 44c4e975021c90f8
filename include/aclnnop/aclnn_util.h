/* pyaclnn: visibility attribute used by every aclnnop header. */
#ifndef PYACLNN_ACLNNOP_ACLNN_UTIL_H
#define PYACLNN_ACLNNOP_ACLNN_UTIL_H

#define ACLNN_API __attribute__((visibility("default")))

#endif
