/* Undoes dtype_begin.h. No include guard. */
#undef KT
#undef KACC
#undef KLOAD
#undef KSTORE
#undef KNAME
#undef KDT_SEL_
#undef KDT_SEL
#undef KSUFFIX
