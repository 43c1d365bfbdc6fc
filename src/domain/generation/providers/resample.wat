;; Bilinear resampling of one 8-bit plane with WebAssembly SIMD (128-bit), for the offline
;; Ken Burns video. Two passes per output row:
;;   1. vertical: blend the two source rows around the row's sample position into `tmp`,
;;      16 pixels per step (weights in Q15, `i16x8.q15mulr_sat_s`);
;;   2. horizontal: for each group of 8 output pixels, load 16 bytes of `tmp` at the group's
;;      first source column, pick each pixel's left and right neighbour with `i8x16.swizzle`
;;      (indices precomputed per frame; a zero index byte 0x80 widens them to i16 lanes),
;;      blend them by the pixel's Q15 weight and store 8 bytes.
;; The caller (ken-burns-simd.ts) lays the tables out in memory and checks that a group's
;; 8 pixels read at most 16 consecutive source bytes.
(module
  (memory (export "memory") 1)

  ;; rows: dstH records of 8 bytes { i32 source row offset (row index * stride), i32 Q15 weight }
  ;; groups: groupCount records of 64 bytes { i32 output x, i32 source column of byte 0, pad,
  ;;         v128 indices of left neighbours at 16, v128 indices of right neighbours at 32,
  ;;         v128 i16x8 Q15 weights at 48 }
  ;; [k0, k1): the source columns the vertical pass blends (multiples of 16).
  (func (export "resample")
    (param $src i32) (param $stride i32) (param $tmp i32) (param $dst i32)
    (param $dstW i32) (param $dstH i32) (param $rows i32) (param $groups i32)
    (param $groupCount i32) (param $k0 i32) (param $k1 i32)
    (local $y i32) (local $r0 i32) (local $r1 i32) (local $k i32) (local $fy v128)
    (local $a v128) (local $b v128) (local $lo v128) (local $hi v128)
    (local $g i32) (local $rec i32) (local $out i32) (local $v v128)
    (block $rowsDone
      (loop $rowLoop
        (br_if $rowsDone (i32.ge_u (local.get $y) (local.get $dstH)))
        (local.set $r0 (i32.add (local.get $src)
          (i32.load (i32.add (local.get $rows) (i32.shl (local.get $y) (i32.const 3))))))
        (local.set $r1 (i32.add (local.get $r0) (local.get $stride)))
        (local.set $fy (i16x8.splat
          (i32.load offset=4 (i32.add (local.get $rows) (i32.shl (local.get $y) (i32.const 3))))))
        ;; vertical pass
        (local.set $k (local.get $k0))
        (block $vDone
          (loop $vLoop
            (br_if $vDone (i32.ge_u (local.get $k) (local.get $k1)))
            (local.set $a (v128.load (i32.add (local.get $r0) (local.get $k))))
            (local.set $b (v128.load (i32.add (local.get $r1) (local.get $k))))
            (local.set $lo (i16x8.extend_low_i8x16_u (local.get $a)))
            (local.set $hi (i16x8.extend_high_i8x16_u (local.get $a)))
            (local.set $lo (i16x8.add (local.get $lo)
              (i16x8.q15mulr_sat_s
                (i16x8.sub (i16x8.extend_low_i8x16_u (local.get $b)) (local.get $lo))
                (local.get $fy))))
            (local.set $hi (i16x8.add (local.get $hi)
              (i16x8.q15mulr_sat_s
                (i16x8.sub (i16x8.extend_high_i8x16_u (local.get $b)) (local.get $hi))
                (local.get $fy))))
            (v128.store (i32.add (local.get $tmp) (local.get $k))
              (i8x16.narrow_i16x8_u (local.get $lo) (local.get $hi)))
            (local.set $k (i32.add (local.get $k) (i32.const 16)))
            (br $vLoop)))
        ;; horizontal pass
        (local.set $out (i32.add (local.get $dst) (i32.mul (local.get $y) (local.get $dstW))))
        (local.set $g (i32.const 0))
        (local.set $rec (local.get $groups))
        (block $hDone
          (loop $hLoop
            (br_if $hDone (i32.ge_u (local.get $g) (local.get $groupCount)))
            (local.set $v (v128.load (i32.add (local.get $tmp) (i32.load offset=4 (local.get $rec)))))
            (local.set $a (i8x16.swizzle (local.get $v) (v128.load offset=16 (local.get $rec))))
            (local.set $b (i8x16.swizzle (local.get $v) (v128.load offset=32 (local.get $rec))))
            (local.set $a (i16x8.add (local.get $a)
              (i16x8.q15mulr_sat_s
                (i16x8.sub (local.get $b) (local.get $a))
                (v128.load offset=48 (local.get $rec)))))
            (v128.store64_lane 0
              (i32.add (local.get $out) (i32.load (local.get $rec)))
              (i8x16.narrow_i16x8_u (local.get $a) (local.get $a)))
            (local.set $g (i32.add (local.get $g) (i32.const 1)))
            (local.set $rec (i32.add (local.get $rec) (i32.const 64)))
            (br $hLoop)))
        (local.set $y (i32.add (local.get $y) (i32.const 1)))
        (br $rowLoop))))
)
