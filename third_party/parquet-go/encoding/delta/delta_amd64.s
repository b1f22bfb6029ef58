//go:build !purego

#include "textflag.h"

GLOBL ·rotateLeft32(SB), RODATA|NOPTR, $32
DATA ·rotateLeft32+0(SB)/4, $7
DATA ·rotateLeft32+4(SB)/4, $0
DATA ·rotateLeft32+8(SB)/4, $1
DATA ·rotateLeft32+12(SB)/4, $2
DATA ·rotateLeft32+16(SB)/4, $3
DATA ·rotateLeft32+20(SB)/4, $4
DATA ·rotateLeft32+24(SB)/4, $5
DATA ·rotateLeft32+28(SB)/4, $6
