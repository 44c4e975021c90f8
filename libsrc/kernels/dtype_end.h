/* Undoes dtype_begin.h. No include guard. */
#undef KT
#undef KACC
#undef KLOAD
#undef KSTORE
#undef KLOAD_ROW
#undef KSTORE_ROW
#undef KNAME
#undef KDT_SEL_
#undef KDT_SEL
#undef KSUFFIX
