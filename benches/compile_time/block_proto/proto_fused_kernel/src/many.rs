//! Copies 1.. of the kernels of lib.rs with other constants (timing resolution).
use std::hint::black_box;
pub fn k2_1_into(__tg_in0: &[i32], __tg_in1: &[i32], __tg_in2: &[i32],
        __tg_out_slice0: &mut [i32]) {
        const _: () =
            if !(::tensorgraph::__private::LANES == 8 ||
                        ::tensorgraph::__private::LANES == 16) {
                {
                    ::core::panic!("tensorgraph's macro and runtime disagree on the lane count");
                }
            };
        {
            let __tg_v1: ::tensorgraph::__private::V<i32> =
                ::tensorgraph::__private::V::<i32>::splat((3 as i32));
            let __tg_v5: ::tensorgraph::__private::V<i32> =
                ::tensorgraph::__private::V::<i32>::splat((1 as i32));
            let __tg_v10: ::tensorgraph::__private::V<i32> =
                ::tensorgraph::__private::V::<i32>::splat((9 as i32));
            let __tg_v13: ::tensorgraph::__private::V<i32> =
                ::tensorgraph::__private::V::<i32>::splat((0 as i32));
            for __tg_i0 in 0..16 {
                let __tg_off0: usize =
                    usize::wrapping_add(0usize,
                        usize::wrapping_mul(__tg_i0, 128));
                let __tg_off1: usize = 0usize;
                let __tg_off2: usize =
                    usize::wrapping_add(0usize,
                        usize::wrapping_mul(__tg_i0, 1));
                let __tg_off3: usize =
                    usize::wrapping_add(0usize,
                        usize::wrapping_mul(__tg_i0, 128));
                let __tg_v7: ::tensorgraph::__private::V<i32> =
                    ::tensorgraph::__private::V::splat(<i32 as
                                ::tensorgraph::__private::Element>::to_compute(__tg_in2[__tg_off2]));
                let mut __tg_j: usize = 0;
                while __tg_j + ::tensorgraph::__private::LANES <= 128 {
                    let __tg_n: usize = ::tensorgraph::__private::LANES;
                    let __tg_v0: ::tensorgraph::__private::V<i32> =
                        ::tensorgraph::__private::load::<i32>(__tg_in0,
                            __tg_off0 + __tg_j, __tg_n);
                    let __tg_v2: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v0,
                            __tg_v1);
                    let __tg_v3: ::tensorgraph::__private::V<i32> =
                        ::tensorgraph::__private::load::<i32>(__tg_in1,
                            __tg_off1 + __tg_j, __tg_n);
                    let __tg_v4: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::NumLanes>::add_lanes(__tg_v2,
                            __tg_v3);
                    let __tg_v6: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::ShiftLanes>::shr_lanes(__tg_v4,
                            __tg_v5);
                    let __tg_v8: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::BitwiseLanes>::xor_lanes(__tg_v6,
                            __tg_v7);
                    let __tg_v9: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::NumLanes>::max_lanes(__tg_v8,
                            __tg_v0);
                    let __tg_v11: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::BitwiseLanes>::and_lanes(__tg_v0,
                            __tg_v10);
                    let __tg_v12: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v9,
                            __tg_v11);
                    let __tg_v14: ::tensorgraph::__private::V<bool> =
                        <i32 as
                                ::tensorgraph::__private::CompareLanes>::gt_lanes(__tg_v12,
                            __tg_v13);
                    let __tg_v15: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::NumLanes>::neg_lanes(__tg_v12);
                    let __tg_v16: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::SelectLanes>::select_lanes(__tg_v14,
                            __tg_v12, __tg_v15);
                    let __tg_v17: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::NumLanes>::add_lanes(__tg_v16,
                            __tg_v7);
                    ::tensorgraph::__private::store::<i32>(__tg_out_slice0,
                        __tg_off3 + __tg_j, __tg_n, __tg_v17);
                    __tg_j += ::tensorgraph::__private::LANES;
                }
            }
        }
    }

pub fn k9_1_into(__tg_in0: &[f32], __tg_in1: &[f32], __tg_in2: &[f32],
        __tg_out_slice0: &mut [f32], __tg_out_slice1: &mut [f32]) {
        const _: () =
            if !(::tensorgraph::__private::LANES == 8 ||
                        ::tensorgraph::__private::LANES == 16) {
                {
                    ::core::panic!("tensorgraph's macro and runtime disagree on the lane count");
                }
            };
        let mut __tg_temp2 =
            ::tensorgraph::__private::ScratchVec::<f32>::new(16,
                <f32 as ::tensorgraph::__private::Identity>::LOWEST);
        {
            for __tg_row in 0..16 {
                let mut __tg_temp0: [f64; 1] =
                    [<f64 as ::tensorgraph::__private::Identity>::ZERO; 1];
                let mut __tg_temp1: [f64; 1] =
                    [<f64 as ::tensorgraph::__private::Identity>::ZERO; 1];
                {
                    let __tg_temp_slice0: &mut [f64] = &mut __tg_temp0[..];
                    let __tg_i0: usize = __tg_row;
                    let __tg_off0: usize =
                        usize::wrapping_add(0usize,
                            usize::wrapping_mul(__tg_i0, 128));
                    let __tg_off1: usize = 0usize;
                    ::tensorgraph::__private::prefetch(__tg_in0,
                        usize::wrapping_add(__tg_off0, 128), 128);
                    let mut __tg_acc0 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_acc1 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_acc2 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_acc3 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_j: usize = 0;
                    while __tg_j + 4 * ::tensorgraph::__private::LANES <= 128 {
                        {
                            let __tg_j: usize =
                                __tg_j + 0 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v1: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v0);
                            __tg_acc0 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc0,
                                    __tg_v1);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 1 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v1: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v0);
                            __tg_acc1 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc1,
                                    __tg_v1);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 2 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v1: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v0);
                            __tg_acc2 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc2,
                                    __tg_v1);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 3 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v1: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v0);
                            __tg_acc3 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc3,
                                    __tg_v1);
                        }
                        __tg_j += 4 * ::tensorgraph::__private::LANES;
                    }
                    while __tg_j + ::tensorgraph::__private::LANES <= 128 {
                        let __tg_n: usize = ::tensorgraph::__private::LANES;
                        let __tg_v0: ::tensorgraph::__private::V<f32> =
                            ::tensorgraph::__private::load::<f32>(__tg_in0,
                                __tg_off0 + __tg_j, __tg_n);
                        let __tg_v1: ::tensorgraph::__private::V<f64> =
                            ::tensorgraph::__private::cast::<f32, f64>(__tg_v0);
                        __tg_acc0 =
                            <f64 as
                                    ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc0,
                                __tg_v1);
                        __tg_j += ::tensorgraph::__private::LANES;
                    }
                    let __tg_acc =
                        <f64 as
                                ::tensorgraph::__private::NumLanes>::add_lanes(<f64 as
                                    ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc0,
                                __tg_acc1),
                            <f64 as
                                    ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc2,
                                __tg_acc3));
                    __tg_temp_slice0[__tg_off1] =
                        <f64 as
                                ::tensorgraph::__private::Num>::add(__tg_temp_slice0[__tg_off1],
                            ::tensorgraph::__private::fold(__tg_acc,
                                <f64 as ::tensorgraph::__private::Num>::add));
                }
                {
                    let __tg_temp_slice0: &[f64] = &__tg_temp0[..];
                    let __tg_temp_slice1: &mut [f64] = &mut __tg_temp1[..];
                    let __tg_v2: ::tensorgraph::__private::V<f64> =
                        ::tensorgraph::__private::V::<f64>::splat((128.0f64));
                    let __tg_i0: usize = __tg_row;
                    let __tg_off0: usize =
                        usize::wrapping_add(0usize,
                            usize::wrapping_mul(__tg_i0, 128));
                    let __tg_off1: usize = 0usize;
                    let __tg_off2: usize = 0usize;
                    let __tg_v1: ::tensorgraph::__private::V<f64> =
                        ::tensorgraph::__private::V::splat(<f64 as
                                    ::tensorgraph::__private::Element>::to_compute(__tg_temp_slice0[__tg_off1]));
                    let __tg_v3: ::tensorgraph::__private::V<f64> =
                        <f64 as
                                ::tensorgraph::__private::NumLanes>::div_lanes(__tg_v1,
                            __tg_v2);
                    let __tg_v4: ::tensorgraph::__private::V<f32> =
                        ::tensorgraph::__private::cast::<f64, f32>(__tg_v3);
                    let mut __tg_acc0 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_acc1 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_acc2 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_acc3 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_j: usize = 0;
                    while __tg_j + 4 * ::tensorgraph::__private::LANES <= 128 {
                        {
                            let __tg_j: usize =
                                __tg_j + 0 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v5: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v0,
                                    __tg_v4);
                            let __tg_v6: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v5,
                                    __tg_v5);
                            let __tg_v7: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v6);
                            __tg_acc0 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc0,
                                    __tg_v7);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 1 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v5: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v0,
                                    __tg_v4);
                            let __tg_v6: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v5,
                                    __tg_v5);
                            let __tg_v7: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v6);
                            __tg_acc1 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc1,
                                    __tg_v7);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 2 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v5: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v0,
                                    __tg_v4);
                            let __tg_v6: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v5,
                                    __tg_v5);
                            let __tg_v7: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v6);
                            __tg_acc2 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc2,
                                    __tg_v7);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 3 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v5: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v0,
                                    __tg_v4);
                            let __tg_v6: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v5,
                                    __tg_v5);
                            let __tg_v7: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v6);
                            __tg_acc3 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc3,
                                    __tg_v7);
                        }
                        __tg_j += 4 * ::tensorgraph::__private::LANES;
                    }
                    while __tg_j + ::tensorgraph::__private::LANES <= 128 {
                        let __tg_n: usize = ::tensorgraph::__private::LANES;
                        let __tg_v0: ::tensorgraph::__private::V<f32> =
                            ::tensorgraph::__private::load::<f32>(__tg_in0,
                                __tg_off0 + __tg_j, __tg_n);
                        let __tg_v5: ::tensorgraph::__private::V<f32> =
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v0,
                                __tg_v4);
                        let __tg_v6: ::tensorgraph::__private::V<f32> =
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v5,
                                __tg_v5);
                        let __tg_v7: ::tensorgraph::__private::V<f64> =
                            ::tensorgraph::__private::cast::<f32, f64>(__tg_v6);
                        __tg_acc0 =
                            <f64 as
                                    ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc0,
                                __tg_v7);
                        __tg_j += ::tensorgraph::__private::LANES;
                    }
                    let __tg_acc =
                        <f64 as
                                ::tensorgraph::__private::NumLanes>::add_lanes(<f64 as
                                    ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc0,
                                __tg_acc1),
                            <f64 as
                                    ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc2,
                                __tg_acc3));
                    __tg_temp_slice1[__tg_off2] =
                        <f64 as
                                ::tensorgraph::__private::Num>::add(__tg_temp_slice1[__tg_off2],
                            ::tensorgraph::__private::fold(__tg_acc,
                                <f64 as ::tensorgraph::__private::Num>::add));
                }
                {
                    let __tg_temp_slice2: &mut [f32] = &mut __tg_temp2[..];
                    let __tg_i0: usize = __tg_row;
                    let __tg_off0: usize =
                        usize::wrapping_add(0usize,
                            usize::wrapping_mul(__tg_i0, 128));
                    let __tg_off1: usize =
                        usize::wrapping_add(0usize,
                            usize::wrapping_mul(__tg_i0, 1));
                    let mut __tg_acc0 =
                        ::tensorgraph::__private::V::<f32>::splat(<f32 as
                                ::tensorgraph::__private::Identity>::LOWEST);
                    let mut __tg_acc1 =
                        ::tensorgraph::__private::V::<f32>::splat(<f32 as
                                ::tensorgraph::__private::Identity>::LOWEST);
                    let mut __tg_acc2 =
                        ::tensorgraph::__private::V::<f32>::splat(<f32 as
                                ::tensorgraph::__private::Identity>::LOWEST);
                    let mut __tg_acc3 =
                        ::tensorgraph::__private::V::<f32>::splat(<f32 as
                                ::tensorgraph::__private::Identity>::LOWEST);
                    let mut __tg_j: usize = 0;
                    while __tg_j + 4 * ::tensorgraph::__private::LANES <= 128 {
                        {
                            let __tg_j: usize =
                                __tg_j + 0 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            __tg_acc0 =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::max_lanes(__tg_acc0,
                                    __tg_v0);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 1 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            __tg_acc1 =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::max_lanes(__tg_acc1,
                                    __tg_v0);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 2 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            __tg_acc2 =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::max_lanes(__tg_acc2,
                                    __tg_v0);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 3 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            __tg_acc3 =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::max_lanes(__tg_acc3,
                                    __tg_v0);
                        }
                        __tg_j += 4 * ::tensorgraph::__private::LANES;
                    }
                    while __tg_j + ::tensorgraph::__private::LANES <= 128 {
                        let __tg_n: usize = ::tensorgraph::__private::LANES;
                        let __tg_v0: ::tensorgraph::__private::V<f32> =
                            ::tensorgraph::__private::load::<f32>(__tg_in0,
                                __tg_off0 + __tg_j, __tg_n);
                        __tg_acc0 =
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::max_lanes(__tg_acc0,
                                __tg_v0);
                        __tg_j += ::tensorgraph::__private::LANES;
                    }
                    let __tg_acc =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::max_lanes(<f32 as
                                    ::tensorgraph::__private::NumLanes>::max_lanes(__tg_acc0,
                                __tg_acc1),
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::max_lanes(__tg_acc2,
                                __tg_acc3));
                    __tg_temp_slice2[__tg_off1] =
                        <f32 as
                                ::tensorgraph::__private::Num>::max(__tg_temp_slice2[__tg_off1],
                            ::tensorgraph::__private::fold(__tg_acc,
                                <f32 as ::tensorgraph::__private::Num>::max));
                }
                {
                    let __tg_temp_slice0: &[f64] = &__tg_temp0[..];
                    let __tg_temp_slice1: &[f64] = &__tg_temp1[..];
                    let __tg_v2: ::tensorgraph::__private::V<f64> =
                        ::tensorgraph::__private::V::<f64>::splat((128.0f64));
                    let __tg_v7: ::tensorgraph::__private::V<f64> =
                        ::tensorgraph::__private::V::<f64>::splat((128.0f64));
                    let __tg_v10: ::tensorgraph::__private::V<f32> =
                        ::tensorgraph::__private::V::<f32>::splat((2e-6f32));
                    let __tg_i0: usize = __tg_row;
                    let __tg_off0: usize =
                        usize::wrapping_add(0usize,
                            usize::wrapping_mul(__tg_i0, 128));
                    let __tg_off1: usize = 0usize;
                    let __tg_off2: usize = 0usize;
                    let __tg_off3: usize = 0usize;
                    let __tg_off4: usize = 0usize;
                    let __tg_off5: usize =
                        usize::wrapping_add(0usize,
                            usize::wrapping_mul(__tg_i0, 128));
                    let __tg_v1: ::tensorgraph::__private::V<f64> =
                        ::tensorgraph::__private::V::splat(<f64 as
                                    ::tensorgraph::__private::Element>::to_compute(__tg_temp_slice0[__tg_off1]));
                    let __tg_v3: ::tensorgraph::__private::V<f64> =
                        <f64 as
                                ::tensorgraph::__private::NumLanes>::div_lanes(__tg_v1,
                            __tg_v2);
                    let __tg_v4: ::tensorgraph::__private::V<f32> =
                        ::tensorgraph::__private::cast::<f64, f32>(__tg_v3);
                    let __tg_v6: ::tensorgraph::__private::V<f64> =
                        ::tensorgraph::__private::V::splat(<f64 as
                                    ::tensorgraph::__private::Element>::to_compute(__tg_temp_slice1[__tg_off2]));
                    let __tg_v8: ::tensorgraph::__private::V<f64> =
                        <f64 as
                                ::tensorgraph::__private::NumLanes>::div_lanes(__tg_v6,
                            __tg_v7);
                    let __tg_v9: ::tensorgraph::__private::V<f32> =
                        ::tensorgraph::__private::cast::<f64, f32>(__tg_v8);
                    let __tg_v11: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::add_lanes(__tg_v9,
                            __tg_v10);
                    let __tg_v12: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::FloatLanes>::rsqrt_lanes(__tg_v11);
                    let mut __tg_j: usize = 0;
                    while __tg_j + ::tensorgraph::__private::LANES <= 128 {
                        let __tg_n: usize = ::tensorgraph::__private::LANES;
                        let __tg_v0: ::tensorgraph::__private::V<f32> =
                            ::tensorgraph::__private::load::<f32>(__tg_in0,
                                __tg_off0 + __tg_j, __tg_n);
                        let __tg_v5: ::tensorgraph::__private::V<f32> =
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v0,
                                __tg_v4);
                        let __tg_v13: ::tensorgraph::__private::V<f32> =
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v5,
                                __tg_v12);
                        let __tg_v14: ::tensorgraph::__private::V<f32> =
                            ::tensorgraph::__private::load::<f32>(__tg_in1,
                                __tg_off3 + __tg_j, __tg_n);
                        let __tg_v15: ::tensorgraph::__private::V<f32> =
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v13,
                                __tg_v14);
                        let __tg_v16: ::tensorgraph::__private::V<f32> =
                            ::tensorgraph::__private::load::<f32>(__tg_in2,
                                __tg_off4 + __tg_j, __tg_n);
                        let __tg_v17: ::tensorgraph::__private::V<f32> =
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::add_lanes(__tg_v15,
                                __tg_v16);
                        ::tensorgraph::__private::store::<f32>(__tg_out_slice0,
                            __tg_off5 + __tg_j, __tg_n, __tg_v17);
                        __tg_j += ::tensorgraph::__private::LANES;
                    }
                }
            }
        }
        {
            let __tg_temp_slice2: &[f32] = &__tg_temp2[..];
            let __tg_off0: usize = 0usize;
            let __tg_off1: usize = 0usize;
            let mut __tg_j: usize = 0;
            while __tg_j + ::tensorgraph::__private::LANES <= 16 {
                let __tg_n: usize = ::tensorgraph::__private::LANES;
                let __tg_v0: ::tensorgraph::__private::V<f32> =
                    ::tensorgraph::__private::load::<f32>(__tg_temp_slice2,
                        __tg_off0 + __tg_j, __tg_n);
                ::tensorgraph::__private::store::<f32>(__tg_out_slice1,
                    __tg_off1 + __tg_j, __tg_n, __tg_v0);
                __tg_j += ::tensorgraph::__private::LANES;
            }
        }
    }

pub fn k16_1_into(__tg_in0: &[f32], __tg_in1: &[f32], s: f32,
        __tg_out_slice0: &mut [f32]) {
        const _: () =
            if !(::tensorgraph::__private::LANES == 8 ||
                        ::tensorgraph::__private::LANES == 16) {
                {
                    ::core::panic!("tensorgraph's macro and runtime disagree on the lane count");
                }
            };
        {
            let __tg_v1: ::tensorgraph::__private::V<f32> =
                ::tensorgraph::__private::V::<f32>::splat(<f32 as
                            ::tensorgraph::__private::Element>::to_compute(s));
            let __tg_v5: ::tensorgraph::__private::V<f32> =
                ::tensorgraph::__private::V::<f32>::splat((1.5f32));
            let __tg_v14: ::tensorgraph::__private::V<f32> =
                ::tensorgraph::__private::V::<f32>::splat((0.76f32));
            for __tg_i0 in 0..16 {
                let __tg_off0: usize =
                    usize::wrapping_add(0usize,
                        usize::wrapping_mul(__tg_i0, 128));
                let __tg_off1: usize = 0usize;
                let __tg_off2: usize =
                    usize::wrapping_add(0usize,
                        usize::wrapping_mul(__tg_i0, 128));
                let mut __tg_j: usize = 0;
                while __tg_j + ::tensorgraph::__private::LANES <= 128 {
                    let __tg_n: usize = ::tensorgraph::__private::LANES;
                    let __tg_v0: ::tensorgraph::__private::V<f32> =
                        ::tensorgraph::__private::load::<f32>(__tg_in0,
                            __tg_off0 + __tg_j, __tg_n);
                    let __tg_v2: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v0,
                            __tg_v1);
                    let __tg_v3: ::tensorgraph::__private::V<f32> =
                        ::tensorgraph::__private::load::<f32>(__tg_in1,
                            __tg_off1 + __tg_j, __tg_n);
                    let __tg_v4: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::add_lanes(__tg_v2,
                            __tg_v3);
                    let __tg_v6: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v4,
                            __tg_v5);
                    let __tg_v7: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::relu_lanes(__tg_v6);
                    let __tg_v8: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::abs_lanes(__tg_v7);
                    let __tg_v9: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::neg_lanes(__tg_v8);
                    let __tg_v10: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::FloatLanes>::exp_lanes(__tg_v9);
                    let __tg_v11: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v7,
                            __tg_v10);
                    let __tg_v12: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::abs_lanes(__tg_v0);
                    let __tg_v13: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::FloatLanes>::sqrt_lanes(__tg_v12);
                    let __tg_v15: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v13,
                            __tg_v14);
                    let __tg_v16: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::add_lanes(__tg_v11,
                            __tg_v15);
                    ::tensorgraph::__private::store::<f32>(__tg_out_slice0,
                        __tg_off2 + __tg_j, __tg_n, __tg_v16);
                    __tg_j += ::tensorgraph::__private::LANES;
                }
            }
        }
    }
#[inline(never)]
pub fn run_2_1() {
    let mut o = vec![0i32; 2048];
    k2_1_into(&black_box(vec![0i32; 2048]), &black_box(vec![0i32; 128]), &black_box(vec![0i32; 16]), &mut o);
    black_box(o);
}
#[inline(never)]
pub fn run_9_1() {
    let (mut y, mut m) = (vec![0f32; 2048], vec![0f32; 16]);
    k9_1_into(&black_box(vec![0f32; 2048]), &black_box(vec![0f32; 128]), &black_box(vec![0f32; 128]), &mut y, &mut m);
    black_box((y, m));
}
#[inline(never)]
pub fn run_16_1() {
    let mut o = vec![0f32; 2048];
    k16_1_into(&black_box(vec![0f32; 2048]), &black_box(vec![0f32; 128]), black_box(1.5), &mut o);
    black_box(o);
}

pub fn k2_2_into(__tg_in0: &[i32], __tg_in1: &[i32], __tg_in2: &[i32],
        __tg_out_slice0: &mut [i32]) {
        const _: () =
            if !(::tensorgraph::__private::LANES == 8 ||
                        ::tensorgraph::__private::LANES == 16) {
                {
                    ::core::panic!("tensorgraph's macro and runtime disagree on the lane count");
                }
            };
        {
            let __tg_v1: ::tensorgraph::__private::V<i32> =
                ::tensorgraph::__private::V::<i32>::splat((3 as i32));
            let __tg_v5: ::tensorgraph::__private::V<i32> =
                ::tensorgraph::__private::V::<i32>::splat((1 as i32));
            let __tg_v10: ::tensorgraph::__private::V<i32> =
                ::tensorgraph::__private::V::<i32>::splat((11 as i32));
            let __tg_v13: ::tensorgraph::__private::V<i32> =
                ::tensorgraph::__private::V::<i32>::splat((0 as i32));
            for __tg_i0 in 0..16 {
                let __tg_off0: usize =
                    usize::wrapping_add(0usize,
                        usize::wrapping_mul(__tg_i0, 128));
                let __tg_off1: usize = 0usize;
                let __tg_off2: usize =
                    usize::wrapping_add(0usize,
                        usize::wrapping_mul(__tg_i0, 1));
                let __tg_off3: usize =
                    usize::wrapping_add(0usize,
                        usize::wrapping_mul(__tg_i0, 128));
                let __tg_v7: ::tensorgraph::__private::V<i32> =
                    ::tensorgraph::__private::V::splat(<i32 as
                                ::tensorgraph::__private::Element>::to_compute(__tg_in2[__tg_off2]));
                let mut __tg_j: usize = 0;
                while __tg_j + ::tensorgraph::__private::LANES <= 128 {
                    let __tg_n: usize = ::tensorgraph::__private::LANES;
                    let __tg_v0: ::tensorgraph::__private::V<i32> =
                        ::tensorgraph::__private::load::<i32>(__tg_in0,
                            __tg_off0 + __tg_j, __tg_n);
                    let __tg_v2: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v0,
                            __tg_v1);
                    let __tg_v3: ::tensorgraph::__private::V<i32> =
                        ::tensorgraph::__private::load::<i32>(__tg_in1,
                            __tg_off1 + __tg_j, __tg_n);
                    let __tg_v4: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::NumLanes>::add_lanes(__tg_v2,
                            __tg_v3);
                    let __tg_v6: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::ShiftLanes>::shr_lanes(__tg_v4,
                            __tg_v5);
                    let __tg_v8: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::BitwiseLanes>::xor_lanes(__tg_v6,
                            __tg_v7);
                    let __tg_v9: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::NumLanes>::max_lanes(__tg_v8,
                            __tg_v0);
                    let __tg_v11: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::BitwiseLanes>::and_lanes(__tg_v0,
                            __tg_v10);
                    let __tg_v12: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v9,
                            __tg_v11);
                    let __tg_v14: ::tensorgraph::__private::V<bool> =
                        <i32 as
                                ::tensorgraph::__private::CompareLanes>::gt_lanes(__tg_v12,
                            __tg_v13);
                    let __tg_v15: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::NumLanes>::neg_lanes(__tg_v12);
                    let __tg_v16: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::SelectLanes>::select_lanes(__tg_v14,
                            __tg_v12, __tg_v15);
                    let __tg_v17: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::NumLanes>::add_lanes(__tg_v16,
                            __tg_v7);
                    ::tensorgraph::__private::store::<i32>(__tg_out_slice0,
                        __tg_off3 + __tg_j, __tg_n, __tg_v17);
                    __tg_j += ::tensorgraph::__private::LANES;
                }
            }
        }
    }

pub fn k9_2_into(__tg_in0: &[f32], __tg_in1: &[f32], __tg_in2: &[f32],
        __tg_out_slice0: &mut [f32], __tg_out_slice1: &mut [f32]) {
        const _: () =
            if !(::tensorgraph::__private::LANES == 8 ||
                        ::tensorgraph::__private::LANES == 16) {
                {
                    ::core::panic!("tensorgraph's macro and runtime disagree on the lane count");
                }
            };
        let mut __tg_temp2 =
            ::tensorgraph::__private::ScratchVec::<f32>::new(16,
                <f32 as ::tensorgraph::__private::Identity>::LOWEST);
        {
            for __tg_row in 0..16 {
                let mut __tg_temp0: [f64; 1] =
                    [<f64 as ::tensorgraph::__private::Identity>::ZERO; 1];
                let mut __tg_temp1: [f64; 1] =
                    [<f64 as ::tensorgraph::__private::Identity>::ZERO; 1];
                {
                    let __tg_temp_slice0: &mut [f64] = &mut __tg_temp0[..];
                    let __tg_i0: usize = __tg_row;
                    let __tg_off0: usize =
                        usize::wrapping_add(0usize,
                            usize::wrapping_mul(__tg_i0, 128));
                    let __tg_off1: usize = 0usize;
                    ::tensorgraph::__private::prefetch(__tg_in0,
                        usize::wrapping_add(__tg_off0, 128), 128);
                    let mut __tg_acc0 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_acc1 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_acc2 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_acc3 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_j: usize = 0;
                    while __tg_j + 4 * ::tensorgraph::__private::LANES <= 128 {
                        {
                            let __tg_j: usize =
                                __tg_j + 0 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v1: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v0);
                            __tg_acc0 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc0,
                                    __tg_v1);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 1 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v1: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v0);
                            __tg_acc1 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc1,
                                    __tg_v1);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 2 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v1: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v0);
                            __tg_acc2 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc2,
                                    __tg_v1);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 3 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v1: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v0);
                            __tg_acc3 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc3,
                                    __tg_v1);
                        }
                        __tg_j += 4 * ::tensorgraph::__private::LANES;
                    }
                    while __tg_j + ::tensorgraph::__private::LANES <= 128 {
                        let __tg_n: usize = ::tensorgraph::__private::LANES;
                        let __tg_v0: ::tensorgraph::__private::V<f32> =
                            ::tensorgraph::__private::load::<f32>(__tg_in0,
                                __tg_off0 + __tg_j, __tg_n);
                        let __tg_v1: ::tensorgraph::__private::V<f64> =
                            ::tensorgraph::__private::cast::<f32, f64>(__tg_v0);
                        __tg_acc0 =
                            <f64 as
                                    ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc0,
                                __tg_v1);
                        __tg_j += ::tensorgraph::__private::LANES;
                    }
                    let __tg_acc =
                        <f64 as
                                ::tensorgraph::__private::NumLanes>::add_lanes(<f64 as
                                    ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc0,
                                __tg_acc1),
                            <f64 as
                                    ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc2,
                                __tg_acc3));
                    __tg_temp_slice0[__tg_off1] =
                        <f64 as
                                ::tensorgraph::__private::Num>::add(__tg_temp_slice0[__tg_off1],
                            ::tensorgraph::__private::fold(__tg_acc,
                                <f64 as ::tensorgraph::__private::Num>::add));
                }
                {
                    let __tg_temp_slice0: &[f64] = &__tg_temp0[..];
                    let __tg_temp_slice1: &mut [f64] = &mut __tg_temp1[..];
                    let __tg_v2: ::tensorgraph::__private::V<f64> =
                        ::tensorgraph::__private::V::<f64>::splat((128.0f64));
                    let __tg_i0: usize = __tg_row;
                    let __tg_off0: usize =
                        usize::wrapping_add(0usize,
                            usize::wrapping_mul(__tg_i0, 128));
                    let __tg_off1: usize = 0usize;
                    let __tg_off2: usize = 0usize;
                    let __tg_v1: ::tensorgraph::__private::V<f64> =
                        ::tensorgraph::__private::V::splat(<f64 as
                                    ::tensorgraph::__private::Element>::to_compute(__tg_temp_slice0[__tg_off1]));
                    let __tg_v3: ::tensorgraph::__private::V<f64> =
                        <f64 as
                                ::tensorgraph::__private::NumLanes>::div_lanes(__tg_v1,
                            __tg_v2);
                    let __tg_v4: ::tensorgraph::__private::V<f32> =
                        ::tensorgraph::__private::cast::<f64, f32>(__tg_v3);
                    let mut __tg_acc0 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_acc1 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_acc2 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_acc3 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_j: usize = 0;
                    while __tg_j + 4 * ::tensorgraph::__private::LANES <= 128 {
                        {
                            let __tg_j: usize =
                                __tg_j + 0 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v5: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v0,
                                    __tg_v4);
                            let __tg_v6: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v5,
                                    __tg_v5);
                            let __tg_v7: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v6);
                            __tg_acc0 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc0,
                                    __tg_v7);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 1 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v5: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v0,
                                    __tg_v4);
                            let __tg_v6: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v5,
                                    __tg_v5);
                            let __tg_v7: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v6);
                            __tg_acc1 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc1,
                                    __tg_v7);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 2 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v5: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v0,
                                    __tg_v4);
                            let __tg_v6: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v5,
                                    __tg_v5);
                            let __tg_v7: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v6);
                            __tg_acc2 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc2,
                                    __tg_v7);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 3 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v5: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v0,
                                    __tg_v4);
                            let __tg_v6: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v5,
                                    __tg_v5);
                            let __tg_v7: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v6);
                            __tg_acc3 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc3,
                                    __tg_v7);
                        }
                        __tg_j += 4 * ::tensorgraph::__private::LANES;
                    }
                    while __tg_j + ::tensorgraph::__private::LANES <= 128 {
                        let __tg_n: usize = ::tensorgraph::__private::LANES;
                        let __tg_v0: ::tensorgraph::__private::V<f32> =
                            ::tensorgraph::__private::load::<f32>(__tg_in0,
                                __tg_off0 + __tg_j, __tg_n);
                        let __tg_v5: ::tensorgraph::__private::V<f32> =
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v0,
                                __tg_v4);
                        let __tg_v6: ::tensorgraph::__private::V<f32> =
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v5,
                                __tg_v5);
                        let __tg_v7: ::tensorgraph::__private::V<f64> =
                            ::tensorgraph::__private::cast::<f32, f64>(__tg_v6);
                        __tg_acc0 =
                            <f64 as
                                    ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc0,
                                __tg_v7);
                        __tg_j += ::tensorgraph::__private::LANES;
                    }
                    let __tg_acc =
                        <f64 as
                                ::tensorgraph::__private::NumLanes>::add_lanes(<f64 as
                                    ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc0,
                                __tg_acc1),
                            <f64 as
                                    ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc2,
                                __tg_acc3));
                    __tg_temp_slice1[__tg_off2] =
                        <f64 as
                                ::tensorgraph::__private::Num>::add(__tg_temp_slice1[__tg_off2],
                            ::tensorgraph::__private::fold(__tg_acc,
                                <f64 as ::tensorgraph::__private::Num>::add));
                }
                {
                    let __tg_temp_slice2: &mut [f32] = &mut __tg_temp2[..];
                    let __tg_i0: usize = __tg_row;
                    let __tg_off0: usize =
                        usize::wrapping_add(0usize,
                            usize::wrapping_mul(__tg_i0, 128));
                    let __tg_off1: usize =
                        usize::wrapping_add(0usize,
                            usize::wrapping_mul(__tg_i0, 1));
                    let mut __tg_acc0 =
                        ::tensorgraph::__private::V::<f32>::splat(<f32 as
                                ::tensorgraph::__private::Identity>::LOWEST);
                    let mut __tg_acc1 =
                        ::tensorgraph::__private::V::<f32>::splat(<f32 as
                                ::tensorgraph::__private::Identity>::LOWEST);
                    let mut __tg_acc2 =
                        ::tensorgraph::__private::V::<f32>::splat(<f32 as
                                ::tensorgraph::__private::Identity>::LOWEST);
                    let mut __tg_acc3 =
                        ::tensorgraph::__private::V::<f32>::splat(<f32 as
                                ::tensorgraph::__private::Identity>::LOWEST);
                    let mut __tg_j: usize = 0;
                    while __tg_j + 4 * ::tensorgraph::__private::LANES <= 128 {
                        {
                            let __tg_j: usize =
                                __tg_j + 0 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            __tg_acc0 =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::max_lanes(__tg_acc0,
                                    __tg_v0);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 1 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            __tg_acc1 =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::max_lanes(__tg_acc1,
                                    __tg_v0);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 2 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            __tg_acc2 =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::max_lanes(__tg_acc2,
                                    __tg_v0);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 3 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            __tg_acc3 =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::max_lanes(__tg_acc3,
                                    __tg_v0);
                        }
                        __tg_j += 4 * ::tensorgraph::__private::LANES;
                    }
                    while __tg_j + ::tensorgraph::__private::LANES <= 128 {
                        let __tg_n: usize = ::tensorgraph::__private::LANES;
                        let __tg_v0: ::tensorgraph::__private::V<f32> =
                            ::tensorgraph::__private::load::<f32>(__tg_in0,
                                __tg_off0 + __tg_j, __tg_n);
                        __tg_acc0 =
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::max_lanes(__tg_acc0,
                                __tg_v0);
                        __tg_j += ::tensorgraph::__private::LANES;
                    }
                    let __tg_acc =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::max_lanes(<f32 as
                                    ::tensorgraph::__private::NumLanes>::max_lanes(__tg_acc0,
                                __tg_acc1),
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::max_lanes(__tg_acc2,
                                __tg_acc3));
                    __tg_temp_slice2[__tg_off1] =
                        <f32 as
                                ::tensorgraph::__private::Num>::max(__tg_temp_slice2[__tg_off1],
                            ::tensorgraph::__private::fold(__tg_acc,
                                <f32 as ::tensorgraph::__private::Num>::max));
                }
                {
                    let __tg_temp_slice0: &[f64] = &__tg_temp0[..];
                    let __tg_temp_slice1: &[f64] = &__tg_temp1[..];
                    let __tg_v2: ::tensorgraph::__private::V<f64> =
                        ::tensorgraph::__private::V::<f64>::splat((128.0f64));
                    let __tg_v7: ::tensorgraph::__private::V<f64> =
                        ::tensorgraph::__private::V::<f64>::splat((128.0f64));
                    let __tg_v10: ::tensorgraph::__private::V<f32> =
                        ::tensorgraph::__private::V::<f32>::splat((3e-6f32));
                    let __tg_i0: usize = __tg_row;
                    let __tg_off0: usize =
                        usize::wrapping_add(0usize,
                            usize::wrapping_mul(__tg_i0, 128));
                    let __tg_off1: usize = 0usize;
                    let __tg_off2: usize = 0usize;
                    let __tg_off3: usize = 0usize;
                    let __tg_off4: usize = 0usize;
                    let __tg_off5: usize =
                        usize::wrapping_add(0usize,
                            usize::wrapping_mul(__tg_i0, 128));
                    let __tg_v1: ::tensorgraph::__private::V<f64> =
                        ::tensorgraph::__private::V::splat(<f64 as
                                    ::tensorgraph::__private::Element>::to_compute(__tg_temp_slice0[__tg_off1]));
                    let __tg_v3: ::tensorgraph::__private::V<f64> =
                        <f64 as
                                ::tensorgraph::__private::NumLanes>::div_lanes(__tg_v1,
                            __tg_v2);
                    let __tg_v4: ::tensorgraph::__private::V<f32> =
                        ::tensorgraph::__private::cast::<f64, f32>(__tg_v3);
                    let __tg_v6: ::tensorgraph::__private::V<f64> =
                        ::tensorgraph::__private::V::splat(<f64 as
                                    ::tensorgraph::__private::Element>::to_compute(__tg_temp_slice1[__tg_off2]));
                    let __tg_v8: ::tensorgraph::__private::V<f64> =
                        <f64 as
                                ::tensorgraph::__private::NumLanes>::div_lanes(__tg_v6,
                            __tg_v7);
                    let __tg_v9: ::tensorgraph::__private::V<f32> =
                        ::tensorgraph::__private::cast::<f64, f32>(__tg_v8);
                    let __tg_v11: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::add_lanes(__tg_v9,
                            __tg_v10);
                    let __tg_v12: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::FloatLanes>::rsqrt_lanes(__tg_v11);
                    let mut __tg_j: usize = 0;
                    while __tg_j + ::tensorgraph::__private::LANES <= 128 {
                        let __tg_n: usize = ::tensorgraph::__private::LANES;
                        let __tg_v0: ::tensorgraph::__private::V<f32> =
                            ::tensorgraph::__private::load::<f32>(__tg_in0,
                                __tg_off0 + __tg_j, __tg_n);
                        let __tg_v5: ::tensorgraph::__private::V<f32> =
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v0,
                                __tg_v4);
                        let __tg_v13: ::tensorgraph::__private::V<f32> =
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v5,
                                __tg_v12);
                        let __tg_v14: ::tensorgraph::__private::V<f32> =
                            ::tensorgraph::__private::load::<f32>(__tg_in1,
                                __tg_off3 + __tg_j, __tg_n);
                        let __tg_v15: ::tensorgraph::__private::V<f32> =
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v13,
                                __tg_v14);
                        let __tg_v16: ::tensorgraph::__private::V<f32> =
                            ::tensorgraph::__private::load::<f32>(__tg_in2,
                                __tg_off4 + __tg_j, __tg_n);
                        let __tg_v17: ::tensorgraph::__private::V<f32> =
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::add_lanes(__tg_v15,
                                __tg_v16);
                        ::tensorgraph::__private::store::<f32>(__tg_out_slice0,
                            __tg_off5 + __tg_j, __tg_n, __tg_v17);
                        __tg_j += ::tensorgraph::__private::LANES;
                    }
                }
            }
        }
        {
            let __tg_temp_slice2: &[f32] = &__tg_temp2[..];
            let __tg_off0: usize = 0usize;
            let __tg_off1: usize = 0usize;
            let mut __tg_j: usize = 0;
            while __tg_j + ::tensorgraph::__private::LANES <= 16 {
                let __tg_n: usize = ::tensorgraph::__private::LANES;
                let __tg_v0: ::tensorgraph::__private::V<f32> =
                    ::tensorgraph::__private::load::<f32>(__tg_temp_slice2,
                        __tg_off0 + __tg_j, __tg_n);
                ::tensorgraph::__private::store::<f32>(__tg_out_slice1,
                    __tg_off1 + __tg_j, __tg_n, __tg_v0);
                __tg_j += ::tensorgraph::__private::LANES;
            }
        }
    }

pub fn k16_2_into(__tg_in0: &[f32], __tg_in1: &[f32], s: f32,
        __tg_out_slice0: &mut [f32]) {
        const _: () =
            if !(::tensorgraph::__private::LANES == 8 ||
                        ::tensorgraph::__private::LANES == 16) {
                {
                    ::core::panic!("tensorgraph's macro and runtime disagree on the lane count");
                }
            };
        {
            let __tg_v1: ::tensorgraph::__private::V<f32> =
                ::tensorgraph::__private::V::<f32>::splat(<f32 as
                            ::tensorgraph::__private::Element>::to_compute(s));
            let __tg_v5: ::tensorgraph::__private::V<f32> =
                ::tensorgraph::__private::V::<f32>::splat((1.5f32));
            let __tg_v14: ::tensorgraph::__private::V<f32> =
                ::tensorgraph::__private::V::<f32>::splat((0.77f32));
            for __tg_i0 in 0..16 {
                let __tg_off0: usize =
                    usize::wrapping_add(0usize,
                        usize::wrapping_mul(__tg_i0, 128));
                let __tg_off1: usize = 0usize;
                let __tg_off2: usize =
                    usize::wrapping_add(0usize,
                        usize::wrapping_mul(__tg_i0, 128));
                let mut __tg_j: usize = 0;
                while __tg_j + ::tensorgraph::__private::LANES <= 128 {
                    let __tg_n: usize = ::tensorgraph::__private::LANES;
                    let __tg_v0: ::tensorgraph::__private::V<f32> =
                        ::tensorgraph::__private::load::<f32>(__tg_in0,
                            __tg_off0 + __tg_j, __tg_n);
                    let __tg_v2: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v0,
                            __tg_v1);
                    let __tg_v3: ::tensorgraph::__private::V<f32> =
                        ::tensorgraph::__private::load::<f32>(__tg_in1,
                            __tg_off1 + __tg_j, __tg_n);
                    let __tg_v4: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::add_lanes(__tg_v2,
                            __tg_v3);
                    let __tg_v6: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v4,
                            __tg_v5);
                    let __tg_v7: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::relu_lanes(__tg_v6);
                    let __tg_v8: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::abs_lanes(__tg_v7);
                    let __tg_v9: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::neg_lanes(__tg_v8);
                    let __tg_v10: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::FloatLanes>::exp_lanes(__tg_v9);
                    let __tg_v11: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v7,
                            __tg_v10);
                    let __tg_v12: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::abs_lanes(__tg_v0);
                    let __tg_v13: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::FloatLanes>::sqrt_lanes(__tg_v12);
                    let __tg_v15: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v13,
                            __tg_v14);
                    let __tg_v16: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::add_lanes(__tg_v11,
                            __tg_v15);
                    ::tensorgraph::__private::store::<f32>(__tg_out_slice0,
                        __tg_off2 + __tg_j, __tg_n, __tg_v16);
                    __tg_j += ::tensorgraph::__private::LANES;
                }
            }
        }
    }
#[inline(never)]
pub fn run_2_2() {
    let mut o = vec![0i32; 2048];
    k2_2_into(&black_box(vec![0i32; 2048]), &black_box(vec![0i32; 128]), &black_box(vec![0i32; 16]), &mut o);
    black_box(o);
}
#[inline(never)]
pub fn run_9_2() {
    let (mut y, mut m) = (vec![0f32; 2048], vec![0f32; 16]);
    k9_2_into(&black_box(vec![0f32; 2048]), &black_box(vec![0f32; 128]), &black_box(vec![0f32; 128]), &mut y, &mut m);
    black_box((y, m));
}
#[inline(never)]
pub fn run_16_2() {
    let mut o = vec![0f32; 2048];
    k16_2_into(&black_box(vec![0f32; 2048]), &black_box(vec![0f32; 128]), black_box(1.5), &mut o);
    black_box(o);
}

pub fn k2_3_into(__tg_in0: &[i32], __tg_in1: &[i32], __tg_in2: &[i32],
        __tg_out_slice0: &mut [i32]) {
        const _: () =
            if !(::tensorgraph::__private::LANES == 8 ||
                        ::tensorgraph::__private::LANES == 16) {
                {
                    ::core::panic!("tensorgraph's macro and runtime disagree on the lane count");
                }
            };
        {
            let __tg_v1: ::tensorgraph::__private::V<i32> =
                ::tensorgraph::__private::V::<i32>::splat((3 as i32));
            let __tg_v5: ::tensorgraph::__private::V<i32> =
                ::tensorgraph::__private::V::<i32>::splat((1 as i32));
            let __tg_v10: ::tensorgraph::__private::V<i32> =
                ::tensorgraph::__private::V::<i32>::splat((13 as i32));
            let __tg_v13: ::tensorgraph::__private::V<i32> =
                ::tensorgraph::__private::V::<i32>::splat((0 as i32));
            for __tg_i0 in 0..16 {
                let __tg_off0: usize =
                    usize::wrapping_add(0usize,
                        usize::wrapping_mul(__tg_i0, 128));
                let __tg_off1: usize = 0usize;
                let __tg_off2: usize =
                    usize::wrapping_add(0usize,
                        usize::wrapping_mul(__tg_i0, 1));
                let __tg_off3: usize =
                    usize::wrapping_add(0usize,
                        usize::wrapping_mul(__tg_i0, 128));
                let __tg_v7: ::tensorgraph::__private::V<i32> =
                    ::tensorgraph::__private::V::splat(<i32 as
                                ::tensorgraph::__private::Element>::to_compute(__tg_in2[__tg_off2]));
                let mut __tg_j: usize = 0;
                while __tg_j + ::tensorgraph::__private::LANES <= 128 {
                    let __tg_n: usize = ::tensorgraph::__private::LANES;
                    let __tg_v0: ::tensorgraph::__private::V<i32> =
                        ::tensorgraph::__private::load::<i32>(__tg_in0,
                            __tg_off0 + __tg_j, __tg_n);
                    let __tg_v2: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v0,
                            __tg_v1);
                    let __tg_v3: ::tensorgraph::__private::V<i32> =
                        ::tensorgraph::__private::load::<i32>(__tg_in1,
                            __tg_off1 + __tg_j, __tg_n);
                    let __tg_v4: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::NumLanes>::add_lanes(__tg_v2,
                            __tg_v3);
                    let __tg_v6: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::ShiftLanes>::shr_lanes(__tg_v4,
                            __tg_v5);
                    let __tg_v8: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::BitwiseLanes>::xor_lanes(__tg_v6,
                            __tg_v7);
                    let __tg_v9: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::NumLanes>::max_lanes(__tg_v8,
                            __tg_v0);
                    let __tg_v11: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::BitwiseLanes>::and_lanes(__tg_v0,
                            __tg_v10);
                    let __tg_v12: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v9,
                            __tg_v11);
                    let __tg_v14: ::tensorgraph::__private::V<bool> =
                        <i32 as
                                ::tensorgraph::__private::CompareLanes>::gt_lanes(__tg_v12,
                            __tg_v13);
                    let __tg_v15: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::NumLanes>::neg_lanes(__tg_v12);
                    let __tg_v16: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::SelectLanes>::select_lanes(__tg_v14,
                            __tg_v12, __tg_v15);
                    let __tg_v17: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::NumLanes>::add_lanes(__tg_v16,
                            __tg_v7);
                    ::tensorgraph::__private::store::<i32>(__tg_out_slice0,
                        __tg_off3 + __tg_j, __tg_n, __tg_v17);
                    __tg_j += ::tensorgraph::__private::LANES;
                }
            }
        }
    }

pub fn k9_3_into(__tg_in0: &[f32], __tg_in1: &[f32], __tg_in2: &[f32],
        __tg_out_slice0: &mut [f32], __tg_out_slice1: &mut [f32]) {
        const _: () =
            if !(::tensorgraph::__private::LANES == 8 ||
                        ::tensorgraph::__private::LANES == 16) {
                {
                    ::core::panic!("tensorgraph's macro and runtime disagree on the lane count");
                }
            };
        let mut __tg_temp2 =
            ::tensorgraph::__private::ScratchVec::<f32>::new(16,
                <f32 as ::tensorgraph::__private::Identity>::LOWEST);
        {
            for __tg_row in 0..16 {
                let mut __tg_temp0: [f64; 1] =
                    [<f64 as ::tensorgraph::__private::Identity>::ZERO; 1];
                let mut __tg_temp1: [f64; 1] =
                    [<f64 as ::tensorgraph::__private::Identity>::ZERO; 1];
                {
                    let __tg_temp_slice0: &mut [f64] = &mut __tg_temp0[..];
                    let __tg_i0: usize = __tg_row;
                    let __tg_off0: usize =
                        usize::wrapping_add(0usize,
                            usize::wrapping_mul(__tg_i0, 128));
                    let __tg_off1: usize = 0usize;
                    ::tensorgraph::__private::prefetch(__tg_in0,
                        usize::wrapping_add(__tg_off0, 128), 128);
                    let mut __tg_acc0 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_acc1 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_acc2 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_acc3 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_j: usize = 0;
                    while __tg_j + 4 * ::tensorgraph::__private::LANES <= 128 {
                        {
                            let __tg_j: usize =
                                __tg_j + 0 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v1: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v0);
                            __tg_acc0 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc0,
                                    __tg_v1);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 1 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v1: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v0);
                            __tg_acc1 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc1,
                                    __tg_v1);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 2 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v1: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v0);
                            __tg_acc2 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc2,
                                    __tg_v1);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 3 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v1: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v0);
                            __tg_acc3 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc3,
                                    __tg_v1);
                        }
                        __tg_j += 4 * ::tensorgraph::__private::LANES;
                    }
                    while __tg_j + ::tensorgraph::__private::LANES <= 128 {
                        let __tg_n: usize = ::tensorgraph::__private::LANES;
                        let __tg_v0: ::tensorgraph::__private::V<f32> =
                            ::tensorgraph::__private::load::<f32>(__tg_in0,
                                __tg_off0 + __tg_j, __tg_n);
                        let __tg_v1: ::tensorgraph::__private::V<f64> =
                            ::tensorgraph::__private::cast::<f32, f64>(__tg_v0);
                        __tg_acc0 =
                            <f64 as
                                    ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc0,
                                __tg_v1);
                        __tg_j += ::tensorgraph::__private::LANES;
                    }
                    let __tg_acc =
                        <f64 as
                                ::tensorgraph::__private::NumLanes>::add_lanes(<f64 as
                                    ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc0,
                                __tg_acc1),
                            <f64 as
                                    ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc2,
                                __tg_acc3));
                    __tg_temp_slice0[__tg_off1] =
                        <f64 as
                                ::tensorgraph::__private::Num>::add(__tg_temp_slice0[__tg_off1],
                            ::tensorgraph::__private::fold(__tg_acc,
                                <f64 as ::tensorgraph::__private::Num>::add));
                }
                {
                    let __tg_temp_slice0: &[f64] = &__tg_temp0[..];
                    let __tg_temp_slice1: &mut [f64] = &mut __tg_temp1[..];
                    let __tg_v2: ::tensorgraph::__private::V<f64> =
                        ::tensorgraph::__private::V::<f64>::splat((128.0f64));
                    let __tg_i0: usize = __tg_row;
                    let __tg_off0: usize =
                        usize::wrapping_add(0usize,
                            usize::wrapping_mul(__tg_i0, 128));
                    let __tg_off1: usize = 0usize;
                    let __tg_off2: usize = 0usize;
                    let __tg_v1: ::tensorgraph::__private::V<f64> =
                        ::tensorgraph::__private::V::splat(<f64 as
                                    ::tensorgraph::__private::Element>::to_compute(__tg_temp_slice0[__tg_off1]));
                    let __tg_v3: ::tensorgraph::__private::V<f64> =
                        <f64 as
                                ::tensorgraph::__private::NumLanes>::div_lanes(__tg_v1,
                            __tg_v2);
                    let __tg_v4: ::tensorgraph::__private::V<f32> =
                        ::tensorgraph::__private::cast::<f64, f32>(__tg_v3);
                    let mut __tg_acc0 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_acc1 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_acc2 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_acc3 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_j: usize = 0;
                    while __tg_j + 4 * ::tensorgraph::__private::LANES <= 128 {
                        {
                            let __tg_j: usize =
                                __tg_j + 0 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v5: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v0,
                                    __tg_v4);
                            let __tg_v6: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v5,
                                    __tg_v5);
                            let __tg_v7: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v6);
                            __tg_acc0 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc0,
                                    __tg_v7);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 1 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v5: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v0,
                                    __tg_v4);
                            let __tg_v6: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v5,
                                    __tg_v5);
                            let __tg_v7: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v6);
                            __tg_acc1 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc1,
                                    __tg_v7);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 2 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v5: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v0,
                                    __tg_v4);
                            let __tg_v6: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v5,
                                    __tg_v5);
                            let __tg_v7: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v6);
                            __tg_acc2 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc2,
                                    __tg_v7);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 3 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v5: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v0,
                                    __tg_v4);
                            let __tg_v6: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v5,
                                    __tg_v5);
                            let __tg_v7: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v6);
                            __tg_acc3 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc3,
                                    __tg_v7);
                        }
                        __tg_j += 4 * ::tensorgraph::__private::LANES;
                    }
                    while __tg_j + ::tensorgraph::__private::LANES <= 128 {
                        let __tg_n: usize = ::tensorgraph::__private::LANES;
                        let __tg_v0: ::tensorgraph::__private::V<f32> =
                            ::tensorgraph::__private::load::<f32>(__tg_in0,
                                __tg_off0 + __tg_j, __tg_n);
                        let __tg_v5: ::tensorgraph::__private::V<f32> =
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v0,
                                __tg_v4);
                        let __tg_v6: ::tensorgraph::__private::V<f32> =
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v5,
                                __tg_v5);
                        let __tg_v7: ::tensorgraph::__private::V<f64> =
                            ::tensorgraph::__private::cast::<f32, f64>(__tg_v6);
                        __tg_acc0 =
                            <f64 as
                                    ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc0,
                                __tg_v7);
                        __tg_j += ::tensorgraph::__private::LANES;
                    }
                    let __tg_acc =
                        <f64 as
                                ::tensorgraph::__private::NumLanes>::add_lanes(<f64 as
                                    ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc0,
                                __tg_acc1),
                            <f64 as
                                    ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc2,
                                __tg_acc3));
                    __tg_temp_slice1[__tg_off2] =
                        <f64 as
                                ::tensorgraph::__private::Num>::add(__tg_temp_slice1[__tg_off2],
                            ::tensorgraph::__private::fold(__tg_acc,
                                <f64 as ::tensorgraph::__private::Num>::add));
                }
                {
                    let __tg_temp_slice2: &mut [f32] = &mut __tg_temp2[..];
                    let __tg_i0: usize = __tg_row;
                    let __tg_off0: usize =
                        usize::wrapping_add(0usize,
                            usize::wrapping_mul(__tg_i0, 128));
                    let __tg_off1: usize =
                        usize::wrapping_add(0usize,
                            usize::wrapping_mul(__tg_i0, 1));
                    let mut __tg_acc0 =
                        ::tensorgraph::__private::V::<f32>::splat(<f32 as
                                ::tensorgraph::__private::Identity>::LOWEST);
                    let mut __tg_acc1 =
                        ::tensorgraph::__private::V::<f32>::splat(<f32 as
                                ::tensorgraph::__private::Identity>::LOWEST);
                    let mut __tg_acc2 =
                        ::tensorgraph::__private::V::<f32>::splat(<f32 as
                                ::tensorgraph::__private::Identity>::LOWEST);
                    let mut __tg_acc3 =
                        ::tensorgraph::__private::V::<f32>::splat(<f32 as
                                ::tensorgraph::__private::Identity>::LOWEST);
                    let mut __tg_j: usize = 0;
                    while __tg_j + 4 * ::tensorgraph::__private::LANES <= 128 {
                        {
                            let __tg_j: usize =
                                __tg_j + 0 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            __tg_acc0 =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::max_lanes(__tg_acc0,
                                    __tg_v0);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 1 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            __tg_acc1 =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::max_lanes(__tg_acc1,
                                    __tg_v0);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 2 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            __tg_acc2 =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::max_lanes(__tg_acc2,
                                    __tg_v0);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 3 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            __tg_acc3 =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::max_lanes(__tg_acc3,
                                    __tg_v0);
                        }
                        __tg_j += 4 * ::tensorgraph::__private::LANES;
                    }
                    while __tg_j + ::tensorgraph::__private::LANES <= 128 {
                        let __tg_n: usize = ::tensorgraph::__private::LANES;
                        let __tg_v0: ::tensorgraph::__private::V<f32> =
                            ::tensorgraph::__private::load::<f32>(__tg_in0,
                                __tg_off0 + __tg_j, __tg_n);
                        __tg_acc0 =
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::max_lanes(__tg_acc0,
                                __tg_v0);
                        __tg_j += ::tensorgraph::__private::LANES;
                    }
                    let __tg_acc =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::max_lanes(<f32 as
                                    ::tensorgraph::__private::NumLanes>::max_lanes(__tg_acc0,
                                __tg_acc1),
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::max_lanes(__tg_acc2,
                                __tg_acc3));
                    __tg_temp_slice2[__tg_off1] =
                        <f32 as
                                ::tensorgraph::__private::Num>::max(__tg_temp_slice2[__tg_off1],
                            ::tensorgraph::__private::fold(__tg_acc,
                                <f32 as ::tensorgraph::__private::Num>::max));
                }
                {
                    let __tg_temp_slice0: &[f64] = &__tg_temp0[..];
                    let __tg_temp_slice1: &[f64] = &__tg_temp1[..];
                    let __tg_v2: ::tensorgraph::__private::V<f64> =
                        ::tensorgraph::__private::V::<f64>::splat((128.0f64));
                    let __tg_v7: ::tensorgraph::__private::V<f64> =
                        ::tensorgraph::__private::V::<f64>::splat((128.0f64));
                    let __tg_v10: ::tensorgraph::__private::V<f32> =
                        ::tensorgraph::__private::V::<f32>::splat((4e-6f32));
                    let __tg_i0: usize = __tg_row;
                    let __tg_off0: usize =
                        usize::wrapping_add(0usize,
                            usize::wrapping_mul(__tg_i0, 128));
                    let __tg_off1: usize = 0usize;
                    let __tg_off2: usize = 0usize;
                    let __tg_off3: usize = 0usize;
                    let __tg_off4: usize = 0usize;
                    let __tg_off5: usize =
                        usize::wrapping_add(0usize,
                            usize::wrapping_mul(__tg_i0, 128));
                    let __tg_v1: ::tensorgraph::__private::V<f64> =
                        ::tensorgraph::__private::V::splat(<f64 as
                                    ::tensorgraph::__private::Element>::to_compute(__tg_temp_slice0[__tg_off1]));
                    let __tg_v3: ::tensorgraph::__private::V<f64> =
                        <f64 as
                                ::tensorgraph::__private::NumLanes>::div_lanes(__tg_v1,
                            __tg_v2);
                    let __tg_v4: ::tensorgraph::__private::V<f32> =
                        ::tensorgraph::__private::cast::<f64, f32>(__tg_v3);
                    let __tg_v6: ::tensorgraph::__private::V<f64> =
                        ::tensorgraph::__private::V::splat(<f64 as
                                    ::tensorgraph::__private::Element>::to_compute(__tg_temp_slice1[__tg_off2]));
                    let __tg_v8: ::tensorgraph::__private::V<f64> =
                        <f64 as
                                ::tensorgraph::__private::NumLanes>::div_lanes(__tg_v6,
                            __tg_v7);
                    let __tg_v9: ::tensorgraph::__private::V<f32> =
                        ::tensorgraph::__private::cast::<f64, f32>(__tg_v8);
                    let __tg_v11: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::add_lanes(__tg_v9,
                            __tg_v10);
                    let __tg_v12: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::FloatLanes>::rsqrt_lanes(__tg_v11);
                    let mut __tg_j: usize = 0;
                    while __tg_j + ::tensorgraph::__private::LANES <= 128 {
                        let __tg_n: usize = ::tensorgraph::__private::LANES;
                        let __tg_v0: ::tensorgraph::__private::V<f32> =
                            ::tensorgraph::__private::load::<f32>(__tg_in0,
                                __tg_off0 + __tg_j, __tg_n);
                        let __tg_v5: ::tensorgraph::__private::V<f32> =
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v0,
                                __tg_v4);
                        let __tg_v13: ::tensorgraph::__private::V<f32> =
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v5,
                                __tg_v12);
                        let __tg_v14: ::tensorgraph::__private::V<f32> =
                            ::tensorgraph::__private::load::<f32>(__tg_in1,
                                __tg_off3 + __tg_j, __tg_n);
                        let __tg_v15: ::tensorgraph::__private::V<f32> =
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v13,
                                __tg_v14);
                        let __tg_v16: ::tensorgraph::__private::V<f32> =
                            ::tensorgraph::__private::load::<f32>(__tg_in2,
                                __tg_off4 + __tg_j, __tg_n);
                        let __tg_v17: ::tensorgraph::__private::V<f32> =
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::add_lanes(__tg_v15,
                                __tg_v16);
                        ::tensorgraph::__private::store::<f32>(__tg_out_slice0,
                            __tg_off5 + __tg_j, __tg_n, __tg_v17);
                        __tg_j += ::tensorgraph::__private::LANES;
                    }
                }
            }
        }
        {
            let __tg_temp_slice2: &[f32] = &__tg_temp2[..];
            let __tg_off0: usize = 0usize;
            let __tg_off1: usize = 0usize;
            let mut __tg_j: usize = 0;
            while __tg_j + ::tensorgraph::__private::LANES <= 16 {
                let __tg_n: usize = ::tensorgraph::__private::LANES;
                let __tg_v0: ::tensorgraph::__private::V<f32> =
                    ::tensorgraph::__private::load::<f32>(__tg_temp_slice2,
                        __tg_off0 + __tg_j, __tg_n);
                ::tensorgraph::__private::store::<f32>(__tg_out_slice1,
                    __tg_off1 + __tg_j, __tg_n, __tg_v0);
                __tg_j += ::tensorgraph::__private::LANES;
            }
        }
    }

pub fn k16_3_into(__tg_in0: &[f32], __tg_in1: &[f32], s: f32,
        __tg_out_slice0: &mut [f32]) {
        const _: () =
            if !(::tensorgraph::__private::LANES == 8 ||
                        ::tensorgraph::__private::LANES == 16) {
                {
                    ::core::panic!("tensorgraph's macro and runtime disagree on the lane count");
                }
            };
        {
            let __tg_v1: ::tensorgraph::__private::V<f32> =
                ::tensorgraph::__private::V::<f32>::splat(<f32 as
                            ::tensorgraph::__private::Element>::to_compute(s));
            let __tg_v5: ::tensorgraph::__private::V<f32> =
                ::tensorgraph::__private::V::<f32>::splat((1.5f32));
            let __tg_v14: ::tensorgraph::__private::V<f32> =
                ::tensorgraph::__private::V::<f32>::splat((0.78f32));
            for __tg_i0 in 0..16 {
                let __tg_off0: usize =
                    usize::wrapping_add(0usize,
                        usize::wrapping_mul(__tg_i0, 128));
                let __tg_off1: usize = 0usize;
                let __tg_off2: usize =
                    usize::wrapping_add(0usize,
                        usize::wrapping_mul(__tg_i0, 128));
                let mut __tg_j: usize = 0;
                while __tg_j + ::tensorgraph::__private::LANES <= 128 {
                    let __tg_n: usize = ::tensorgraph::__private::LANES;
                    let __tg_v0: ::tensorgraph::__private::V<f32> =
                        ::tensorgraph::__private::load::<f32>(__tg_in0,
                            __tg_off0 + __tg_j, __tg_n);
                    let __tg_v2: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v0,
                            __tg_v1);
                    let __tg_v3: ::tensorgraph::__private::V<f32> =
                        ::tensorgraph::__private::load::<f32>(__tg_in1,
                            __tg_off1 + __tg_j, __tg_n);
                    let __tg_v4: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::add_lanes(__tg_v2,
                            __tg_v3);
                    let __tg_v6: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v4,
                            __tg_v5);
                    let __tg_v7: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::relu_lanes(__tg_v6);
                    let __tg_v8: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::abs_lanes(__tg_v7);
                    let __tg_v9: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::neg_lanes(__tg_v8);
                    let __tg_v10: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::FloatLanes>::exp_lanes(__tg_v9);
                    let __tg_v11: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v7,
                            __tg_v10);
                    let __tg_v12: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::abs_lanes(__tg_v0);
                    let __tg_v13: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::FloatLanes>::sqrt_lanes(__tg_v12);
                    let __tg_v15: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v13,
                            __tg_v14);
                    let __tg_v16: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::add_lanes(__tg_v11,
                            __tg_v15);
                    ::tensorgraph::__private::store::<f32>(__tg_out_slice0,
                        __tg_off2 + __tg_j, __tg_n, __tg_v16);
                    __tg_j += ::tensorgraph::__private::LANES;
                }
            }
        }
    }
#[inline(never)]
pub fn run_2_3() {
    let mut o = vec![0i32; 2048];
    k2_3_into(&black_box(vec![0i32; 2048]), &black_box(vec![0i32; 128]), &black_box(vec![0i32; 16]), &mut o);
    black_box(o);
}
#[inline(never)]
pub fn run_9_3() {
    let (mut y, mut m) = (vec![0f32; 2048], vec![0f32; 16]);
    k9_3_into(&black_box(vec![0f32; 2048]), &black_box(vec![0f32; 128]), &black_box(vec![0f32; 128]), &mut y, &mut m);
    black_box((y, m));
}
#[inline(never)]
pub fn run_16_3() {
    let mut o = vec![0f32; 2048];
    k16_3_into(&black_box(vec![0f32; 2048]), &black_box(vec![0f32; 128]), black_box(1.5), &mut o);
    black_box(o);
}

pub fn k2_4_into(__tg_in0: &[i32], __tg_in1: &[i32], __tg_in2: &[i32],
        __tg_out_slice0: &mut [i32]) {
        const _: () =
            if !(::tensorgraph::__private::LANES == 8 ||
                        ::tensorgraph::__private::LANES == 16) {
                {
                    ::core::panic!("tensorgraph's macro and runtime disagree on the lane count");
                }
            };
        {
            let __tg_v1: ::tensorgraph::__private::V<i32> =
                ::tensorgraph::__private::V::<i32>::splat((3 as i32));
            let __tg_v5: ::tensorgraph::__private::V<i32> =
                ::tensorgraph::__private::V::<i32>::splat((1 as i32));
            let __tg_v10: ::tensorgraph::__private::V<i32> =
                ::tensorgraph::__private::V::<i32>::splat((15 as i32));
            let __tg_v13: ::tensorgraph::__private::V<i32> =
                ::tensorgraph::__private::V::<i32>::splat((0 as i32));
            for __tg_i0 in 0..16 {
                let __tg_off0: usize =
                    usize::wrapping_add(0usize,
                        usize::wrapping_mul(__tg_i0, 128));
                let __tg_off1: usize = 0usize;
                let __tg_off2: usize =
                    usize::wrapping_add(0usize,
                        usize::wrapping_mul(__tg_i0, 1));
                let __tg_off3: usize =
                    usize::wrapping_add(0usize,
                        usize::wrapping_mul(__tg_i0, 128));
                let __tg_v7: ::tensorgraph::__private::V<i32> =
                    ::tensorgraph::__private::V::splat(<i32 as
                                ::tensorgraph::__private::Element>::to_compute(__tg_in2[__tg_off2]));
                let mut __tg_j: usize = 0;
                while __tg_j + ::tensorgraph::__private::LANES <= 128 {
                    let __tg_n: usize = ::tensorgraph::__private::LANES;
                    let __tg_v0: ::tensorgraph::__private::V<i32> =
                        ::tensorgraph::__private::load::<i32>(__tg_in0,
                            __tg_off0 + __tg_j, __tg_n);
                    let __tg_v2: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v0,
                            __tg_v1);
                    let __tg_v3: ::tensorgraph::__private::V<i32> =
                        ::tensorgraph::__private::load::<i32>(__tg_in1,
                            __tg_off1 + __tg_j, __tg_n);
                    let __tg_v4: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::NumLanes>::add_lanes(__tg_v2,
                            __tg_v3);
                    let __tg_v6: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::ShiftLanes>::shr_lanes(__tg_v4,
                            __tg_v5);
                    let __tg_v8: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::BitwiseLanes>::xor_lanes(__tg_v6,
                            __tg_v7);
                    let __tg_v9: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::NumLanes>::max_lanes(__tg_v8,
                            __tg_v0);
                    let __tg_v11: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::BitwiseLanes>::and_lanes(__tg_v0,
                            __tg_v10);
                    let __tg_v12: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v9,
                            __tg_v11);
                    let __tg_v14: ::tensorgraph::__private::V<bool> =
                        <i32 as
                                ::tensorgraph::__private::CompareLanes>::gt_lanes(__tg_v12,
                            __tg_v13);
                    let __tg_v15: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::NumLanes>::neg_lanes(__tg_v12);
                    let __tg_v16: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::SelectLanes>::select_lanes(__tg_v14,
                            __tg_v12, __tg_v15);
                    let __tg_v17: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::NumLanes>::add_lanes(__tg_v16,
                            __tg_v7);
                    ::tensorgraph::__private::store::<i32>(__tg_out_slice0,
                        __tg_off3 + __tg_j, __tg_n, __tg_v17);
                    __tg_j += ::tensorgraph::__private::LANES;
                }
            }
        }
    }

pub fn k9_4_into(__tg_in0: &[f32], __tg_in1: &[f32], __tg_in2: &[f32],
        __tg_out_slice0: &mut [f32], __tg_out_slice1: &mut [f32]) {
        const _: () =
            if !(::tensorgraph::__private::LANES == 8 ||
                        ::tensorgraph::__private::LANES == 16) {
                {
                    ::core::panic!("tensorgraph's macro and runtime disagree on the lane count");
                }
            };
        let mut __tg_temp2 =
            ::tensorgraph::__private::ScratchVec::<f32>::new(16,
                <f32 as ::tensorgraph::__private::Identity>::LOWEST);
        {
            for __tg_row in 0..16 {
                let mut __tg_temp0: [f64; 1] =
                    [<f64 as ::tensorgraph::__private::Identity>::ZERO; 1];
                let mut __tg_temp1: [f64; 1] =
                    [<f64 as ::tensorgraph::__private::Identity>::ZERO; 1];
                {
                    let __tg_temp_slice0: &mut [f64] = &mut __tg_temp0[..];
                    let __tg_i0: usize = __tg_row;
                    let __tg_off0: usize =
                        usize::wrapping_add(0usize,
                            usize::wrapping_mul(__tg_i0, 128));
                    let __tg_off1: usize = 0usize;
                    ::tensorgraph::__private::prefetch(__tg_in0,
                        usize::wrapping_add(__tg_off0, 128), 128);
                    let mut __tg_acc0 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_acc1 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_acc2 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_acc3 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_j: usize = 0;
                    while __tg_j + 4 * ::tensorgraph::__private::LANES <= 128 {
                        {
                            let __tg_j: usize =
                                __tg_j + 0 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v1: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v0);
                            __tg_acc0 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc0,
                                    __tg_v1);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 1 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v1: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v0);
                            __tg_acc1 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc1,
                                    __tg_v1);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 2 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v1: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v0);
                            __tg_acc2 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc2,
                                    __tg_v1);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 3 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v1: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v0);
                            __tg_acc3 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc3,
                                    __tg_v1);
                        }
                        __tg_j += 4 * ::tensorgraph::__private::LANES;
                    }
                    while __tg_j + ::tensorgraph::__private::LANES <= 128 {
                        let __tg_n: usize = ::tensorgraph::__private::LANES;
                        let __tg_v0: ::tensorgraph::__private::V<f32> =
                            ::tensorgraph::__private::load::<f32>(__tg_in0,
                                __tg_off0 + __tg_j, __tg_n);
                        let __tg_v1: ::tensorgraph::__private::V<f64> =
                            ::tensorgraph::__private::cast::<f32, f64>(__tg_v0);
                        __tg_acc0 =
                            <f64 as
                                    ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc0,
                                __tg_v1);
                        __tg_j += ::tensorgraph::__private::LANES;
                    }
                    let __tg_acc =
                        <f64 as
                                ::tensorgraph::__private::NumLanes>::add_lanes(<f64 as
                                    ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc0,
                                __tg_acc1),
                            <f64 as
                                    ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc2,
                                __tg_acc3));
                    __tg_temp_slice0[__tg_off1] =
                        <f64 as
                                ::tensorgraph::__private::Num>::add(__tg_temp_slice0[__tg_off1],
                            ::tensorgraph::__private::fold(__tg_acc,
                                <f64 as ::tensorgraph::__private::Num>::add));
                }
                {
                    let __tg_temp_slice0: &[f64] = &__tg_temp0[..];
                    let __tg_temp_slice1: &mut [f64] = &mut __tg_temp1[..];
                    let __tg_v2: ::tensorgraph::__private::V<f64> =
                        ::tensorgraph::__private::V::<f64>::splat((128.0f64));
                    let __tg_i0: usize = __tg_row;
                    let __tg_off0: usize =
                        usize::wrapping_add(0usize,
                            usize::wrapping_mul(__tg_i0, 128));
                    let __tg_off1: usize = 0usize;
                    let __tg_off2: usize = 0usize;
                    let __tg_v1: ::tensorgraph::__private::V<f64> =
                        ::tensorgraph::__private::V::splat(<f64 as
                                    ::tensorgraph::__private::Element>::to_compute(__tg_temp_slice0[__tg_off1]));
                    let __tg_v3: ::tensorgraph::__private::V<f64> =
                        <f64 as
                                ::tensorgraph::__private::NumLanes>::div_lanes(__tg_v1,
                            __tg_v2);
                    let __tg_v4: ::tensorgraph::__private::V<f32> =
                        ::tensorgraph::__private::cast::<f64, f32>(__tg_v3);
                    let mut __tg_acc0 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_acc1 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_acc2 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_acc3 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_j: usize = 0;
                    while __tg_j + 4 * ::tensorgraph::__private::LANES <= 128 {
                        {
                            let __tg_j: usize =
                                __tg_j + 0 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v5: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v0,
                                    __tg_v4);
                            let __tg_v6: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v5,
                                    __tg_v5);
                            let __tg_v7: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v6);
                            __tg_acc0 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc0,
                                    __tg_v7);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 1 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v5: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v0,
                                    __tg_v4);
                            let __tg_v6: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v5,
                                    __tg_v5);
                            let __tg_v7: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v6);
                            __tg_acc1 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc1,
                                    __tg_v7);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 2 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v5: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v0,
                                    __tg_v4);
                            let __tg_v6: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v5,
                                    __tg_v5);
                            let __tg_v7: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v6);
                            __tg_acc2 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc2,
                                    __tg_v7);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 3 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v5: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v0,
                                    __tg_v4);
                            let __tg_v6: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v5,
                                    __tg_v5);
                            let __tg_v7: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v6);
                            __tg_acc3 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc3,
                                    __tg_v7);
                        }
                        __tg_j += 4 * ::tensorgraph::__private::LANES;
                    }
                    while __tg_j + ::tensorgraph::__private::LANES <= 128 {
                        let __tg_n: usize = ::tensorgraph::__private::LANES;
                        let __tg_v0: ::tensorgraph::__private::V<f32> =
                            ::tensorgraph::__private::load::<f32>(__tg_in0,
                                __tg_off0 + __tg_j, __tg_n);
                        let __tg_v5: ::tensorgraph::__private::V<f32> =
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v0,
                                __tg_v4);
                        let __tg_v6: ::tensorgraph::__private::V<f32> =
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v5,
                                __tg_v5);
                        let __tg_v7: ::tensorgraph::__private::V<f64> =
                            ::tensorgraph::__private::cast::<f32, f64>(__tg_v6);
                        __tg_acc0 =
                            <f64 as
                                    ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc0,
                                __tg_v7);
                        __tg_j += ::tensorgraph::__private::LANES;
                    }
                    let __tg_acc =
                        <f64 as
                                ::tensorgraph::__private::NumLanes>::add_lanes(<f64 as
                                    ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc0,
                                __tg_acc1),
                            <f64 as
                                    ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc2,
                                __tg_acc3));
                    __tg_temp_slice1[__tg_off2] =
                        <f64 as
                                ::tensorgraph::__private::Num>::add(__tg_temp_slice1[__tg_off2],
                            ::tensorgraph::__private::fold(__tg_acc,
                                <f64 as ::tensorgraph::__private::Num>::add));
                }
                {
                    let __tg_temp_slice2: &mut [f32] = &mut __tg_temp2[..];
                    let __tg_i0: usize = __tg_row;
                    let __tg_off0: usize =
                        usize::wrapping_add(0usize,
                            usize::wrapping_mul(__tg_i0, 128));
                    let __tg_off1: usize =
                        usize::wrapping_add(0usize,
                            usize::wrapping_mul(__tg_i0, 1));
                    let mut __tg_acc0 =
                        ::tensorgraph::__private::V::<f32>::splat(<f32 as
                                ::tensorgraph::__private::Identity>::LOWEST);
                    let mut __tg_acc1 =
                        ::tensorgraph::__private::V::<f32>::splat(<f32 as
                                ::tensorgraph::__private::Identity>::LOWEST);
                    let mut __tg_acc2 =
                        ::tensorgraph::__private::V::<f32>::splat(<f32 as
                                ::tensorgraph::__private::Identity>::LOWEST);
                    let mut __tg_acc3 =
                        ::tensorgraph::__private::V::<f32>::splat(<f32 as
                                ::tensorgraph::__private::Identity>::LOWEST);
                    let mut __tg_j: usize = 0;
                    while __tg_j + 4 * ::tensorgraph::__private::LANES <= 128 {
                        {
                            let __tg_j: usize =
                                __tg_j + 0 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            __tg_acc0 =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::max_lanes(__tg_acc0,
                                    __tg_v0);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 1 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            __tg_acc1 =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::max_lanes(__tg_acc1,
                                    __tg_v0);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 2 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            __tg_acc2 =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::max_lanes(__tg_acc2,
                                    __tg_v0);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 3 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            __tg_acc3 =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::max_lanes(__tg_acc3,
                                    __tg_v0);
                        }
                        __tg_j += 4 * ::tensorgraph::__private::LANES;
                    }
                    while __tg_j + ::tensorgraph::__private::LANES <= 128 {
                        let __tg_n: usize = ::tensorgraph::__private::LANES;
                        let __tg_v0: ::tensorgraph::__private::V<f32> =
                            ::tensorgraph::__private::load::<f32>(__tg_in0,
                                __tg_off0 + __tg_j, __tg_n);
                        __tg_acc0 =
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::max_lanes(__tg_acc0,
                                __tg_v0);
                        __tg_j += ::tensorgraph::__private::LANES;
                    }
                    let __tg_acc =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::max_lanes(<f32 as
                                    ::tensorgraph::__private::NumLanes>::max_lanes(__tg_acc0,
                                __tg_acc1),
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::max_lanes(__tg_acc2,
                                __tg_acc3));
                    __tg_temp_slice2[__tg_off1] =
                        <f32 as
                                ::tensorgraph::__private::Num>::max(__tg_temp_slice2[__tg_off1],
                            ::tensorgraph::__private::fold(__tg_acc,
                                <f32 as ::tensorgraph::__private::Num>::max));
                }
                {
                    let __tg_temp_slice0: &[f64] = &__tg_temp0[..];
                    let __tg_temp_slice1: &[f64] = &__tg_temp1[..];
                    let __tg_v2: ::tensorgraph::__private::V<f64> =
                        ::tensorgraph::__private::V::<f64>::splat((128.0f64));
                    let __tg_v7: ::tensorgraph::__private::V<f64> =
                        ::tensorgraph::__private::V::<f64>::splat((128.0f64));
                    let __tg_v10: ::tensorgraph::__private::V<f32> =
                        ::tensorgraph::__private::V::<f32>::splat((5e-6f32));
                    let __tg_i0: usize = __tg_row;
                    let __tg_off0: usize =
                        usize::wrapping_add(0usize,
                            usize::wrapping_mul(__tg_i0, 128));
                    let __tg_off1: usize = 0usize;
                    let __tg_off2: usize = 0usize;
                    let __tg_off3: usize = 0usize;
                    let __tg_off4: usize = 0usize;
                    let __tg_off5: usize =
                        usize::wrapping_add(0usize,
                            usize::wrapping_mul(__tg_i0, 128));
                    let __tg_v1: ::tensorgraph::__private::V<f64> =
                        ::tensorgraph::__private::V::splat(<f64 as
                                    ::tensorgraph::__private::Element>::to_compute(__tg_temp_slice0[__tg_off1]));
                    let __tg_v3: ::tensorgraph::__private::V<f64> =
                        <f64 as
                                ::tensorgraph::__private::NumLanes>::div_lanes(__tg_v1,
                            __tg_v2);
                    let __tg_v4: ::tensorgraph::__private::V<f32> =
                        ::tensorgraph::__private::cast::<f64, f32>(__tg_v3);
                    let __tg_v6: ::tensorgraph::__private::V<f64> =
                        ::tensorgraph::__private::V::splat(<f64 as
                                    ::tensorgraph::__private::Element>::to_compute(__tg_temp_slice1[__tg_off2]));
                    let __tg_v8: ::tensorgraph::__private::V<f64> =
                        <f64 as
                                ::tensorgraph::__private::NumLanes>::div_lanes(__tg_v6,
                            __tg_v7);
                    let __tg_v9: ::tensorgraph::__private::V<f32> =
                        ::tensorgraph::__private::cast::<f64, f32>(__tg_v8);
                    let __tg_v11: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::add_lanes(__tg_v9,
                            __tg_v10);
                    let __tg_v12: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::FloatLanes>::rsqrt_lanes(__tg_v11);
                    let mut __tg_j: usize = 0;
                    while __tg_j + ::tensorgraph::__private::LANES <= 128 {
                        let __tg_n: usize = ::tensorgraph::__private::LANES;
                        let __tg_v0: ::tensorgraph::__private::V<f32> =
                            ::tensorgraph::__private::load::<f32>(__tg_in0,
                                __tg_off0 + __tg_j, __tg_n);
                        let __tg_v5: ::tensorgraph::__private::V<f32> =
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v0,
                                __tg_v4);
                        let __tg_v13: ::tensorgraph::__private::V<f32> =
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v5,
                                __tg_v12);
                        let __tg_v14: ::tensorgraph::__private::V<f32> =
                            ::tensorgraph::__private::load::<f32>(__tg_in1,
                                __tg_off3 + __tg_j, __tg_n);
                        let __tg_v15: ::tensorgraph::__private::V<f32> =
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v13,
                                __tg_v14);
                        let __tg_v16: ::tensorgraph::__private::V<f32> =
                            ::tensorgraph::__private::load::<f32>(__tg_in2,
                                __tg_off4 + __tg_j, __tg_n);
                        let __tg_v17: ::tensorgraph::__private::V<f32> =
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::add_lanes(__tg_v15,
                                __tg_v16);
                        ::tensorgraph::__private::store::<f32>(__tg_out_slice0,
                            __tg_off5 + __tg_j, __tg_n, __tg_v17);
                        __tg_j += ::tensorgraph::__private::LANES;
                    }
                }
            }
        }
        {
            let __tg_temp_slice2: &[f32] = &__tg_temp2[..];
            let __tg_off0: usize = 0usize;
            let __tg_off1: usize = 0usize;
            let mut __tg_j: usize = 0;
            while __tg_j + ::tensorgraph::__private::LANES <= 16 {
                let __tg_n: usize = ::tensorgraph::__private::LANES;
                let __tg_v0: ::tensorgraph::__private::V<f32> =
                    ::tensorgraph::__private::load::<f32>(__tg_temp_slice2,
                        __tg_off0 + __tg_j, __tg_n);
                ::tensorgraph::__private::store::<f32>(__tg_out_slice1,
                    __tg_off1 + __tg_j, __tg_n, __tg_v0);
                __tg_j += ::tensorgraph::__private::LANES;
            }
        }
    }

pub fn k16_4_into(__tg_in0: &[f32], __tg_in1: &[f32], s: f32,
        __tg_out_slice0: &mut [f32]) {
        const _: () =
            if !(::tensorgraph::__private::LANES == 8 ||
                        ::tensorgraph::__private::LANES == 16) {
                {
                    ::core::panic!("tensorgraph's macro and runtime disagree on the lane count");
                }
            };
        {
            let __tg_v1: ::tensorgraph::__private::V<f32> =
                ::tensorgraph::__private::V::<f32>::splat(<f32 as
                            ::tensorgraph::__private::Element>::to_compute(s));
            let __tg_v5: ::tensorgraph::__private::V<f32> =
                ::tensorgraph::__private::V::<f32>::splat((1.5f32));
            let __tg_v14: ::tensorgraph::__private::V<f32> =
                ::tensorgraph::__private::V::<f32>::splat((0.79f32));
            for __tg_i0 in 0..16 {
                let __tg_off0: usize =
                    usize::wrapping_add(0usize,
                        usize::wrapping_mul(__tg_i0, 128));
                let __tg_off1: usize = 0usize;
                let __tg_off2: usize =
                    usize::wrapping_add(0usize,
                        usize::wrapping_mul(__tg_i0, 128));
                let mut __tg_j: usize = 0;
                while __tg_j + ::tensorgraph::__private::LANES <= 128 {
                    let __tg_n: usize = ::tensorgraph::__private::LANES;
                    let __tg_v0: ::tensorgraph::__private::V<f32> =
                        ::tensorgraph::__private::load::<f32>(__tg_in0,
                            __tg_off0 + __tg_j, __tg_n);
                    let __tg_v2: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v0,
                            __tg_v1);
                    let __tg_v3: ::tensorgraph::__private::V<f32> =
                        ::tensorgraph::__private::load::<f32>(__tg_in1,
                            __tg_off1 + __tg_j, __tg_n);
                    let __tg_v4: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::add_lanes(__tg_v2,
                            __tg_v3);
                    let __tg_v6: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v4,
                            __tg_v5);
                    let __tg_v7: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::relu_lanes(__tg_v6);
                    let __tg_v8: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::abs_lanes(__tg_v7);
                    let __tg_v9: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::neg_lanes(__tg_v8);
                    let __tg_v10: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::FloatLanes>::exp_lanes(__tg_v9);
                    let __tg_v11: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v7,
                            __tg_v10);
                    let __tg_v12: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::abs_lanes(__tg_v0);
                    let __tg_v13: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::FloatLanes>::sqrt_lanes(__tg_v12);
                    let __tg_v15: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v13,
                            __tg_v14);
                    let __tg_v16: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::add_lanes(__tg_v11,
                            __tg_v15);
                    ::tensorgraph::__private::store::<f32>(__tg_out_slice0,
                        __tg_off2 + __tg_j, __tg_n, __tg_v16);
                    __tg_j += ::tensorgraph::__private::LANES;
                }
            }
        }
    }
#[inline(never)]
pub fn run_2_4() {
    let mut o = vec![0i32; 2048];
    k2_4_into(&black_box(vec![0i32; 2048]), &black_box(vec![0i32; 128]), &black_box(vec![0i32; 16]), &mut o);
    black_box(o);
}
#[inline(never)]
pub fn run_9_4() {
    let (mut y, mut m) = (vec![0f32; 2048], vec![0f32; 16]);
    k9_4_into(&black_box(vec![0f32; 2048]), &black_box(vec![0f32; 128]), &black_box(vec![0f32; 128]), &mut y, &mut m);
    black_box((y, m));
}
#[inline(never)]
pub fn run_16_4() {
    let mut o = vec![0f32; 2048];
    k16_4_into(&black_box(vec![0f32; 2048]), &black_box(vec![0f32; 128]), black_box(1.5), &mut o);
    black_box(o);
}

pub fn k2_5_into(__tg_in0: &[i32], __tg_in1: &[i32], __tg_in2: &[i32],
        __tg_out_slice0: &mut [i32]) {
        const _: () =
            if !(::tensorgraph::__private::LANES == 8 ||
                        ::tensorgraph::__private::LANES == 16) {
                {
                    ::core::panic!("tensorgraph's macro and runtime disagree on the lane count");
                }
            };
        {
            let __tg_v1: ::tensorgraph::__private::V<i32> =
                ::tensorgraph::__private::V::<i32>::splat((3 as i32));
            let __tg_v5: ::tensorgraph::__private::V<i32> =
                ::tensorgraph::__private::V::<i32>::splat((1 as i32));
            let __tg_v10: ::tensorgraph::__private::V<i32> =
                ::tensorgraph::__private::V::<i32>::splat((17 as i32));
            let __tg_v13: ::tensorgraph::__private::V<i32> =
                ::tensorgraph::__private::V::<i32>::splat((0 as i32));
            for __tg_i0 in 0..16 {
                let __tg_off0: usize =
                    usize::wrapping_add(0usize,
                        usize::wrapping_mul(__tg_i0, 128));
                let __tg_off1: usize = 0usize;
                let __tg_off2: usize =
                    usize::wrapping_add(0usize,
                        usize::wrapping_mul(__tg_i0, 1));
                let __tg_off3: usize =
                    usize::wrapping_add(0usize,
                        usize::wrapping_mul(__tg_i0, 128));
                let __tg_v7: ::tensorgraph::__private::V<i32> =
                    ::tensorgraph::__private::V::splat(<i32 as
                                ::tensorgraph::__private::Element>::to_compute(__tg_in2[__tg_off2]));
                let mut __tg_j: usize = 0;
                while __tg_j + ::tensorgraph::__private::LANES <= 128 {
                    let __tg_n: usize = ::tensorgraph::__private::LANES;
                    let __tg_v0: ::tensorgraph::__private::V<i32> =
                        ::tensorgraph::__private::load::<i32>(__tg_in0,
                            __tg_off0 + __tg_j, __tg_n);
                    let __tg_v2: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v0,
                            __tg_v1);
                    let __tg_v3: ::tensorgraph::__private::V<i32> =
                        ::tensorgraph::__private::load::<i32>(__tg_in1,
                            __tg_off1 + __tg_j, __tg_n);
                    let __tg_v4: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::NumLanes>::add_lanes(__tg_v2,
                            __tg_v3);
                    let __tg_v6: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::ShiftLanes>::shr_lanes(__tg_v4,
                            __tg_v5);
                    let __tg_v8: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::BitwiseLanes>::xor_lanes(__tg_v6,
                            __tg_v7);
                    let __tg_v9: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::NumLanes>::max_lanes(__tg_v8,
                            __tg_v0);
                    let __tg_v11: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::BitwiseLanes>::and_lanes(__tg_v0,
                            __tg_v10);
                    let __tg_v12: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v9,
                            __tg_v11);
                    let __tg_v14: ::tensorgraph::__private::V<bool> =
                        <i32 as
                                ::tensorgraph::__private::CompareLanes>::gt_lanes(__tg_v12,
                            __tg_v13);
                    let __tg_v15: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::NumLanes>::neg_lanes(__tg_v12);
                    let __tg_v16: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::SelectLanes>::select_lanes(__tg_v14,
                            __tg_v12, __tg_v15);
                    let __tg_v17: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::NumLanes>::add_lanes(__tg_v16,
                            __tg_v7);
                    ::tensorgraph::__private::store::<i32>(__tg_out_slice0,
                        __tg_off3 + __tg_j, __tg_n, __tg_v17);
                    __tg_j += ::tensorgraph::__private::LANES;
                }
            }
        }
    }

pub fn k9_5_into(__tg_in0: &[f32], __tg_in1: &[f32], __tg_in2: &[f32],
        __tg_out_slice0: &mut [f32], __tg_out_slice1: &mut [f32]) {
        const _: () =
            if !(::tensorgraph::__private::LANES == 8 ||
                        ::tensorgraph::__private::LANES == 16) {
                {
                    ::core::panic!("tensorgraph's macro and runtime disagree on the lane count");
                }
            };
        let mut __tg_temp2 =
            ::tensorgraph::__private::ScratchVec::<f32>::new(16,
                <f32 as ::tensorgraph::__private::Identity>::LOWEST);
        {
            for __tg_row in 0..16 {
                let mut __tg_temp0: [f64; 1] =
                    [<f64 as ::tensorgraph::__private::Identity>::ZERO; 1];
                let mut __tg_temp1: [f64; 1] =
                    [<f64 as ::tensorgraph::__private::Identity>::ZERO; 1];
                {
                    let __tg_temp_slice0: &mut [f64] = &mut __tg_temp0[..];
                    let __tg_i0: usize = __tg_row;
                    let __tg_off0: usize =
                        usize::wrapping_add(0usize,
                            usize::wrapping_mul(__tg_i0, 128));
                    let __tg_off1: usize = 0usize;
                    ::tensorgraph::__private::prefetch(__tg_in0,
                        usize::wrapping_add(__tg_off0, 128), 128);
                    let mut __tg_acc0 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_acc1 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_acc2 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_acc3 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_j: usize = 0;
                    while __tg_j + 4 * ::tensorgraph::__private::LANES <= 128 {
                        {
                            let __tg_j: usize =
                                __tg_j + 0 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v1: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v0);
                            __tg_acc0 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc0,
                                    __tg_v1);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 1 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v1: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v0);
                            __tg_acc1 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc1,
                                    __tg_v1);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 2 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v1: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v0);
                            __tg_acc2 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc2,
                                    __tg_v1);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 3 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v1: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v0);
                            __tg_acc3 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc3,
                                    __tg_v1);
                        }
                        __tg_j += 4 * ::tensorgraph::__private::LANES;
                    }
                    while __tg_j + ::tensorgraph::__private::LANES <= 128 {
                        let __tg_n: usize = ::tensorgraph::__private::LANES;
                        let __tg_v0: ::tensorgraph::__private::V<f32> =
                            ::tensorgraph::__private::load::<f32>(__tg_in0,
                                __tg_off0 + __tg_j, __tg_n);
                        let __tg_v1: ::tensorgraph::__private::V<f64> =
                            ::tensorgraph::__private::cast::<f32, f64>(__tg_v0);
                        __tg_acc0 =
                            <f64 as
                                    ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc0,
                                __tg_v1);
                        __tg_j += ::tensorgraph::__private::LANES;
                    }
                    let __tg_acc =
                        <f64 as
                                ::tensorgraph::__private::NumLanes>::add_lanes(<f64 as
                                    ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc0,
                                __tg_acc1),
                            <f64 as
                                    ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc2,
                                __tg_acc3));
                    __tg_temp_slice0[__tg_off1] =
                        <f64 as
                                ::tensorgraph::__private::Num>::add(__tg_temp_slice0[__tg_off1],
                            ::tensorgraph::__private::fold(__tg_acc,
                                <f64 as ::tensorgraph::__private::Num>::add));
                }
                {
                    let __tg_temp_slice0: &[f64] = &__tg_temp0[..];
                    let __tg_temp_slice1: &mut [f64] = &mut __tg_temp1[..];
                    let __tg_v2: ::tensorgraph::__private::V<f64> =
                        ::tensorgraph::__private::V::<f64>::splat((128.0f64));
                    let __tg_i0: usize = __tg_row;
                    let __tg_off0: usize =
                        usize::wrapping_add(0usize,
                            usize::wrapping_mul(__tg_i0, 128));
                    let __tg_off1: usize = 0usize;
                    let __tg_off2: usize = 0usize;
                    let __tg_v1: ::tensorgraph::__private::V<f64> =
                        ::tensorgraph::__private::V::splat(<f64 as
                                    ::tensorgraph::__private::Element>::to_compute(__tg_temp_slice0[__tg_off1]));
                    let __tg_v3: ::tensorgraph::__private::V<f64> =
                        <f64 as
                                ::tensorgraph::__private::NumLanes>::div_lanes(__tg_v1,
                            __tg_v2);
                    let __tg_v4: ::tensorgraph::__private::V<f32> =
                        ::tensorgraph::__private::cast::<f64, f32>(__tg_v3);
                    let mut __tg_acc0 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_acc1 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_acc2 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_acc3 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_j: usize = 0;
                    while __tg_j + 4 * ::tensorgraph::__private::LANES <= 128 {
                        {
                            let __tg_j: usize =
                                __tg_j + 0 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v5: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v0,
                                    __tg_v4);
                            let __tg_v6: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v5,
                                    __tg_v5);
                            let __tg_v7: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v6);
                            __tg_acc0 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc0,
                                    __tg_v7);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 1 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v5: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v0,
                                    __tg_v4);
                            let __tg_v6: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v5,
                                    __tg_v5);
                            let __tg_v7: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v6);
                            __tg_acc1 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc1,
                                    __tg_v7);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 2 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v5: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v0,
                                    __tg_v4);
                            let __tg_v6: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v5,
                                    __tg_v5);
                            let __tg_v7: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v6);
                            __tg_acc2 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc2,
                                    __tg_v7);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 3 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v5: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v0,
                                    __tg_v4);
                            let __tg_v6: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v5,
                                    __tg_v5);
                            let __tg_v7: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v6);
                            __tg_acc3 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc3,
                                    __tg_v7);
                        }
                        __tg_j += 4 * ::tensorgraph::__private::LANES;
                    }
                    while __tg_j + ::tensorgraph::__private::LANES <= 128 {
                        let __tg_n: usize = ::tensorgraph::__private::LANES;
                        let __tg_v0: ::tensorgraph::__private::V<f32> =
                            ::tensorgraph::__private::load::<f32>(__tg_in0,
                                __tg_off0 + __tg_j, __tg_n);
                        let __tg_v5: ::tensorgraph::__private::V<f32> =
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v0,
                                __tg_v4);
                        let __tg_v6: ::tensorgraph::__private::V<f32> =
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v5,
                                __tg_v5);
                        let __tg_v7: ::tensorgraph::__private::V<f64> =
                            ::tensorgraph::__private::cast::<f32, f64>(__tg_v6);
                        __tg_acc0 =
                            <f64 as
                                    ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc0,
                                __tg_v7);
                        __tg_j += ::tensorgraph::__private::LANES;
                    }
                    let __tg_acc =
                        <f64 as
                                ::tensorgraph::__private::NumLanes>::add_lanes(<f64 as
                                    ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc0,
                                __tg_acc1),
                            <f64 as
                                    ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc2,
                                __tg_acc3));
                    __tg_temp_slice1[__tg_off2] =
                        <f64 as
                                ::tensorgraph::__private::Num>::add(__tg_temp_slice1[__tg_off2],
                            ::tensorgraph::__private::fold(__tg_acc,
                                <f64 as ::tensorgraph::__private::Num>::add));
                }
                {
                    let __tg_temp_slice2: &mut [f32] = &mut __tg_temp2[..];
                    let __tg_i0: usize = __tg_row;
                    let __tg_off0: usize =
                        usize::wrapping_add(0usize,
                            usize::wrapping_mul(__tg_i0, 128));
                    let __tg_off1: usize =
                        usize::wrapping_add(0usize,
                            usize::wrapping_mul(__tg_i0, 1));
                    let mut __tg_acc0 =
                        ::tensorgraph::__private::V::<f32>::splat(<f32 as
                                ::tensorgraph::__private::Identity>::LOWEST);
                    let mut __tg_acc1 =
                        ::tensorgraph::__private::V::<f32>::splat(<f32 as
                                ::tensorgraph::__private::Identity>::LOWEST);
                    let mut __tg_acc2 =
                        ::tensorgraph::__private::V::<f32>::splat(<f32 as
                                ::tensorgraph::__private::Identity>::LOWEST);
                    let mut __tg_acc3 =
                        ::tensorgraph::__private::V::<f32>::splat(<f32 as
                                ::tensorgraph::__private::Identity>::LOWEST);
                    let mut __tg_j: usize = 0;
                    while __tg_j + 4 * ::tensorgraph::__private::LANES <= 128 {
                        {
                            let __tg_j: usize =
                                __tg_j + 0 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            __tg_acc0 =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::max_lanes(__tg_acc0,
                                    __tg_v0);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 1 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            __tg_acc1 =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::max_lanes(__tg_acc1,
                                    __tg_v0);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 2 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            __tg_acc2 =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::max_lanes(__tg_acc2,
                                    __tg_v0);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 3 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            __tg_acc3 =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::max_lanes(__tg_acc3,
                                    __tg_v0);
                        }
                        __tg_j += 4 * ::tensorgraph::__private::LANES;
                    }
                    while __tg_j + ::tensorgraph::__private::LANES <= 128 {
                        let __tg_n: usize = ::tensorgraph::__private::LANES;
                        let __tg_v0: ::tensorgraph::__private::V<f32> =
                            ::tensorgraph::__private::load::<f32>(__tg_in0,
                                __tg_off0 + __tg_j, __tg_n);
                        __tg_acc0 =
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::max_lanes(__tg_acc0,
                                __tg_v0);
                        __tg_j += ::tensorgraph::__private::LANES;
                    }
                    let __tg_acc =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::max_lanes(<f32 as
                                    ::tensorgraph::__private::NumLanes>::max_lanes(__tg_acc0,
                                __tg_acc1),
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::max_lanes(__tg_acc2,
                                __tg_acc3));
                    __tg_temp_slice2[__tg_off1] =
                        <f32 as
                                ::tensorgraph::__private::Num>::max(__tg_temp_slice2[__tg_off1],
                            ::tensorgraph::__private::fold(__tg_acc,
                                <f32 as ::tensorgraph::__private::Num>::max));
                }
                {
                    let __tg_temp_slice0: &[f64] = &__tg_temp0[..];
                    let __tg_temp_slice1: &[f64] = &__tg_temp1[..];
                    let __tg_v2: ::tensorgraph::__private::V<f64> =
                        ::tensorgraph::__private::V::<f64>::splat((128.0f64));
                    let __tg_v7: ::tensorgraph::__private::V<f64> =
                        ::tensorgraph::__private::V::<f64>::splat((128.0f64));
                    let __tg_v10: ::tensorgraph::__private::V<f32> =
                        ::tensorgraph::__private::V::<f32>::splat((6e-6f32));
                    let __tg_i0: usize = __tg_row;
                    let __tg_off0: usize =
                        usize::wrapping_add(0usize,
                            usize::wrapping_mul(__tg_i0, 128));
                    let __tg_off1: usize = 0usize;
                    let __tg_off2: usize = 0usize;
                    let __tg_off3: usize = 0usize;
                    let __tg_off4: usize = 0usize;
                    let __tg_off5: usize =
                        usize::wrapping_add(0usize,
                            usize::wrapping_mul(__tg_i0, 128));
                    let __tg_v1: ::tensorgraph::__private::V<f64> =
                        ::tensorgraph::__private::V::splat(<f64 as
                                    ::tensorgraph::__private::Element>::to_compute(__tg_temp_slice0[__tg_off1]));
                    let __tg_v3: ::tensorgraph::__private::V<f64> =
                        <f64 as
                                ::tensorgraph::__private::NumLanes>::div_lanes(__tg_v1,
                            __tg_v2);
                    let __tg_v4: ::tensorgraph::__private::V<f32> =
                        ::tensorgraph::__private::cast::<f64, f32>(__tg_v3);
                    let __tg_v6: ::tensorgraph::__private::V<f64> =
                        ::tensorgraph::__private::V::splat(<f64 as
                                    ::tensorgraph::__private::Element>::to_compute(__tg_temp_slice1[__tg_off2]));
                    let __tg_v8: ::tensorgraph::__private::V<f64> =
                        <f64 as
                                ::tensorgraph::__private::NumLanes>::div_lanes(__tg_v6,
                            __tg_v7);
                    let __tg_v9: ::tensorgraph::__private::V<f32> =
                        ::tensorgraph::__private::cast::<f64, f32>(__tg_v8);
                    let __tg_v11: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::add_lanes(__tg_v9,
                            __tg_v10);
                    let __tg_v12: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::FloatLanes>::rsqrt_lanes(__tg_v11);
                    let mut __tg_j: usize = 0;
                    while __tg_j + ::tensorgraph::__private::LANES <= 128 {
                        let __tg_n: usize = ::tensorgraph::__private::LANES;
                        let __tg_v0: ::tensorgraph::__private::V<f32> =
                            ::tensorgraph::__private::load::<f32>(__tg_in0,
                                __tg_off0 + __tg_j, __tg_n);
                        let __tg_v5: ::tensorgraph::__private::V<f32> =
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v0,
                                __tg_v4);
                        let __tg_v13: ::tensorgraph::__private::V<f32> =
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v5,
                                __tg_v12);
                        let __tg_v14: ::tensorgraph::__private::V<f32> =
                            ::tensorgraph::__private::load::<f32>(__tg_in1,
                                __tg_off3 + __tg_j, __tg_n);
                        let __tg_v15: ::tensorgraph::__private::V<f32> =
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v13,
                                __tg_v14);
                        let __tg_v16: ::tensorgraph::__private::V<f32> =
                            ::tensorgraph::__private::load::<f32>(__tg_in2,
                                __tg_off4 + __tg_j, __tg_n);
                        let __tg_v17: ::tensorgraph::__private::V<f32> =
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::add_lanes(__tg_v15,
                                __tg_v16);
                        ::tensorgraph::__private::store::<f32>(__tg_out_slice0,
                            __tg_off5 + __tg_j, __tg_n, __tg_v17);
                        __tg_j += ::tensorgraph::__private::LANES;
                    }
                }
            }
        }
        {
            let __tg_temp_slice2: &[f32] = &__tg_temp2[..];
            let __tg_off0: usize = 0usize;
            let __tg_off1: usize = 0usize;
            let mut __tg_j: usize = 0;
            while __tg_j + ::tensorgraph::__private::LANES <= 16 {
                let __tg_n: usize = ::tensorgraph::__private::LANES;
                let __tg_v0: ::tensorgraph::__private::V<f32> =
                    ::tensorgraph::__private::load::<f32>(__tg_temp_slice2,
                        __tg_off0 + __tg_j, __tg_n);
                ::tensorgraph::__private::store::<f32>(__tg_out_slice1,
                    __tg_off1 + __tg_j, __tg_n, __tg_v0);
                __tg_j += ::tensorgraph::__private::LANES;
            }
        }
    }

pub fn k16_5_into(__tg_in0: &[f32], __tg_in1: &[f32], s: f32,
        __tg_out_slice0: &mut [f32]) {
        const _: () =
            if !(::tensorgraph::__private::LANES == 8 ||
                        ::tensorgraph::__private::LANES == 16) {
                {
                    ::core::panic!("tensorgraph's macro and runtime disagree on the lane count");
                }
            };
        {
            let __tg_v1: ::tensorgraph::__private::V<f32> =
                ::tensorgraph::__private::V::<f32>::splat(<f32 as
                            ::tensorgraph::__private::Element>::to_compute(s));
            let __tg_v5: ::tensorgraph::__private::V<f32> =
                ::tensorgraph::__private::V::<f32>::splat((1.5f32));
            let __tg_v14: ::tensorgraph::__private::V<f32> =
                ::tensorgraph::__private::V::<f32>::splat((0.80f32));
            for __tg_i0 in 0..16 {
                let __tg_off0: usize =
                    usize::wrapping_add(0usize,
                        usize::wrapping_mul(__tg_i0, 128));
                let __tg_off1: usize = 0usize;
                let __tg_off2: usize =
                    usize::wrapping_add(0usize,
                        usize::wrapping_mul(__tg_i0, 128));
                let mut __tg_j: usize = 0;
                while __tg_j + ::tensorgraph::__private::LANES <= 128 {
                    let __tg_n: usize = ::tensorgraph::__private::LANES;
                    let __tg_v0: ::tensorgraph::__private::V<f32> =
                        ::tensorgraph::__private::load::<f32>(__tg_in0,
                            __tg_off0 + __tg_j, __tg_n);
                    let __tg_v2: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v0,
                            __tg_v1);
                    let __tg_v3: ::tensorgraph::__private::V<f32> =
                        ::tensorgraph::__private::load::<f32>(__tg_in1,
                            __tg_off1 + __tg_j, __tg_n);
                    let __tg_v4: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::add_lanes(__tg_v2,
                            __tg_v3);
                    let __tg_v6: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v4,
                            __tg_v5);
                    let __tg_v7: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::relu_lanes(__tg_v6);
                    let __tg_v8: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::abs_lanes(__tg_v7);
                    let __tg_v9: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::neg_lanes(__tg_v8);
                    let __tg_v10: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::FloatLanes>::exp_lanes(__tg_v9);
                    let __tg_v11: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v7,
                            __tg_v10);
                    let __tg_v12: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::abs_lanes(__tg_v0);
                    let __tg_v13: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::FloatLanes>::sqrt_lanes(__tg_v12);
                    let __tg_v15: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v13,
                            __tg_v14);
                    let __tg_v16: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::add_lanes(__tg_v11,
                            __tg_v15);
                    ::tensorgraph::__private::store::<f32>(__tg_out_slice0,
                        __tg_off2 + __tg_j, __tg_n, __tg_v16);
                    __tg_j += ::tensorgraph::__private::LANES;
                }
            }
        }
    }
#[inline(never)]
pub fn run_2_5() {
    let mut o = vec![0i32; 2048];
    k2_5_into(&black_box(vec![0i32; 2048]), &black_box(vec![0i32; 128]), &black_box(vec![0i32; 16]), &mut o);
    black_box(o);
}
#[inline(never)]
pub fn run_9_5() {
    let (mut y, mut m) = (vec![0f32; 2048], vec![0f32; 16]);
    k9_5_into(&black_box(vec![0f32; 2048]), &black_box(vec![0f32; 128]), &black_box(vec![0f32; 128]), &mut y, &mut m);
    black_box((y, m));
}
#[inline(never)]
pub fn run_16_5() {
    let mut o = vec![0f32; 2048];
    k16_5_into(&black_box(vec![0f32; 2048]), &black_box(vec![0f32; 128]), black_box(1.5), &mut o);
    black_box(o);
}

pub fn k2_6_into(__tg_in0: &[i32], __tg_in1: &[i32], __tg_in2: &[i32],
        __tg_out_slice0: &mut [i32]) {
        const _: () =
            if !(::tensorgraph::__private::LANES == 8 ||
                        ::tensorgraph::__private::LANES == 16) {
                {
                    ::core::panic!("tensorgraph's macro and runtime disagree on the lane count");
                }
            };
        {
            let __tg_v1: ::tensorgraph::__private::V<i32> =
                ::tensorgraph::__private::V::<i32>::splat((3 as i32));
            let __tg_v5: ::tensorgraph::__private::V<i32> =
                ::tensorgraph::__private::V::<i32>::splat((1 as i32));
            let __tg_v10: ::tensorgraph::__private::V<i32> =
                ::tensorgraph::__private::V::<i32>::splat((19 as i32));
            let __tg_v13: ::tensorgraph::__private::V<i32> =
                ::tensorgraph::__private::V::<i32>::splat((0 as i32));
            for __tg_i0 in 0..16 {
                let __tg_off0: usize =
                    usize::wrapping_add(0usize,
                        usize::wrapping_mul(__tg_i0, 128));
                let __tg_off1: usize = 0usize;
                let __tg_off2: usize =
                    usize::wrapping_add(0usize,
                        usize::wrapping_mul(__tg_i0, 1));
                let __tg_off3: usize =
                    usize::wrapping_add(0usize,
                        usize::wrapping_mul(__tg_i0, 128));
                let __tg_v7: ::tensorgraph::__private::V<i32> =
                    ::tensorgraph::__private::V::splat(<i32 as
                                ::tensorgraph::__private::Element>::to_compute(__tg_in2[__tg_off2]));
                let mut __tg_j: usize = 0;
                while __tg_j + ::tensorgraph::__private::LANES <= 128 {
                    let __tg_n: usize = ::tensorgraph::__private::LANES;
                    let __tg_v0: ::tensorgraph::__private::V<i32> =
                        ::tensorgraph::__private::load::<i32>(__tg_in0,
                            __tg_off0 + __tg_j, __tg_n);
                    let __tg_v2: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v0,
                            __tg_v1);
                    let __tg_v3: ::tensorgraph::__private::V<i32> =
                        ::tensorgraph::__private::load::<i32>(__tg_in1,
                            __tg_off1 + __tg_j, __tg_n);
                    let __tg_v4: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::NumLanes>::add_lanes(__tg_v2,
                            __tg_v3);
                    let __tg_v6: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::ShiftLanes>::shr_lanes(__tg_v4,
                            __tg_v5);
                    let __tg_v8: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::BitwiseLanes>::xor_lanes(__tg_v6,
                            __tg_v7);
                    let __tg_v9: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::NumLanes>::max_lanes(__tg_v8,
                            __tg_v0);
                    let __tg_v11: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::BitwiseLanes>::and_lanes(__tg_v0,
                            __tg_v10);
                    let __tg_v12: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v9,
                            __tg_v11);
                    let __tg_v14: ::tensorgraph::__private::V<bool> =
                        <i32 as
                                ::tensorgraph::__private::CompareLanes>::gt_lanes(__tg_v12,
                            __tg_v13);
                    let __tg_v15: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::NumLanes>::neg_lanes(__tg_v12);
                    let __tg_v16: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::SelectLanes>::select_lanes(__tg_v14,
                            __tg_v12, __tg_v15);
                    let __tg_v17: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::NumLanes>::add_lanes(__tg_v16,
                            __tg_v7);
                    ::tensorgraph::__private::store::<i32>(__tg_out_slice0,
                        __tg_off3 + __tg_j, __tg_n, __tg_v17);
                    __tg_j += ::tensorgraph::__private::LANES;
                }
            }
        }
    }

pub fn k9_6_into(__tg_in0: &[f32], __tg_in1: &[f32], __tg_in2: &[f32],
        __tg_out_slice0: &mut [f32], __tg_out_slice1: &mut [f32]) {
        const _: () =
            if !(::tensorgraph::__private::LANES == 8 ||
                        ::tensorgraph::__private::LANES == 16) {
                {
                    ::core::panic!("tensorgraph's macro and runtime disagree on the lane count");
                }
            };
        let mut __tg_temp2 =
            ::tensorgraph::__private::ScratchVec::<f32>::new(16,
                <f32 as ::tensorgraph::__private::Identity>::LOWEST);
        {
            for __tg_row in 0..16 {
                let mut __tg_temp0: [f64; 1] =
                    [<f64 as ::tensorgraph::__private::Identity>::ZERO; 1];
                let mut __tg_temp1: [f64; 1] =
                    [<f64 as ::tensorgraph::__private::Identity>::ZERO; 1];
                {
                    let __tg_temp_slice0: &mut [f64] = &mut __tg_temp0[..];
                    let __tg_i0: usize = __tg_row;
                    let __tg_off0: usize =
                        usize::wrapping_add(0usize,
                            usize::wrapping_mul(__tg_i0, 128));
                    let __tg_off1: usize = 0usize;
                    ::tensorgraph::__private::prefetch(__tg_in0,
                        usize::wrapping_add(__tg_off0, 128), 128);
                    let mut __tg_acc0 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_acc1 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_acc2 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_acc3 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_j: usize = 0;
                    while __tg_j + 4 * ::tensorgraph::__private::LANES <= 128 {
                        {
                            let __tg_j: usize =
                                __tg_j + 0 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v1: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v0);
                            __tg_acc0 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc0,
                                    __tg_v1);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 1 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v1: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v0);
                            __tg_acc1 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc1,
                                    __tg_v1);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 2 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v1: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v0);
                            __tg_acc2 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc2,
                                    __tg_v1);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 3 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v1: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v0);
                            __tg_acc3 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc3,
                                    __tg_v1);
                        }
                        __tg_j += 4 * ::tensorgraph::__private::LANES;
                    }
                    while __tg_j + ::tensorgraph::__private::LANES <= 128 {
                        let __tg_n: usize = ::tensorgraph::__private::LANES;
                        let __tg_v0: ::tensorgraph::__private::V<f32> =
                            ::tensorgraph::__private::load::<f32>(__tg_in0,
                                __tg_off0 + __tg_j, __tg_n);
                        let __tg_v1: ::tensorgraph::__private::V<f64> =
                            ::tensorgraph::__private::cast::<f32, f64>(__tg_v0);
                        __tg_acc0 =
                            <f64 as
                                    ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc0,
                                __tg_v1);
                        __tg_j += ::tensorgraph::__private::LANES;
                    }
                    let __tg_acc =
                        <f64 as
                                ::tensorgraph::__private::NumLanes>::add_lanes(<f64 as
                                    ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc0,
                                __tg_acc1),
                            <f64 as
                                    ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc2,
                                __tg_acc3));
                    __tg_temp_slice0[__tg_off1] =
                        <f64 as
                                ::tensorgraph::__private::Num>::add(__tg_temp_slice0[__tg_off1],
                            ::tensorgraph::__private::fold(__tg_acc,
                                <f64 as ::tensorgraph::__private::Num>::add));
                }
                {
                    let __tg_temp_slice0: &[f64] = &__tg_temp0[..];
                    let __tg_temp_slice1: &mut [f64] = &mut __tg_temp1[..];
                    let __tg_v2: ::tensorgraph::__private::V<f64> =
                        ::tensorgraph::__private::V::<f64>::splat((128.0f64));
                    let __tg_i0: usize = __tg_row;
                    let __tg_off0: usize =
                        usize::wrapping_add(0usize,
                            usize::wrapping_mul(__tg_i0, 128));
                    let __tg_off1: usize = 0usize;
                    let __tg_off2: usize = 0usize;
                    let __tg_v1: ::tensorgraph::__private::V<f64> =
                        ::tensorgraph::__private::V::splat(<f64 as
                                    ::tensorgraph::__private::Element>::to_compute(__tg_temp_slice0[__tg_off1]));
                    let __tg_v3: ::tensorgraph::__private::V<f64> =
                        <f64 as
                                ::tensorgraph::__private::NumLanes>::div_lanes(__tg_v1,
                            __tg_v2);
                    let __tg_v4: ::tensorgraph::__private::V<f32> =
                        ::tensorgraph::__private::cast::<f64, f32>(__tg_v3);
                    let mut __tg_acc0 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_acc1 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_acc2 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_acc3 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_j: usize = 0;
                    while __tg_j + 4 * ::tensorgraph::__private::LANES <= 128 {
                        {
                            let __tg_j: usize =
                                __tg_j + 0 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v5: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v0,
                                    __tg_v4);
                            let __tg_v6: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v5,
                                    __tg_v5);
                            let __tg_v7: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v6);
                            __tg_acc0 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc0,
                                    __tg_v7);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 1 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v5: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v0,
                                    __tg_v4);
                            let __tg_v6: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v5,
                                    __tg_v5);
                            let __tg_v7: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v6);
                            __tg_acc1 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc1,
                                    __tg_v7);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 2 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v5: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v0,
                                    __tg_v4);
                            let __tg_v6: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v5,
                                    __tg_v5);
                            let __tg_v7: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v6);
                            __tg_acc2 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc2,
                                    __tg_v7);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 3 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v5: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v0,
                                    __tg_v4);
                            let __tg_v6: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v5,
                                    __tg_v5);
                            let __tg_v7: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v6);
                            __tg_acc3 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc3,
                                    __tg_v7);
                        }
                        __tg_j += 4 * ::tensorgraph::__private::LANES;
                    }
                    while __tg_j + ::tensorgraph::__private::LANES <= 128 {
                        let __tg_n: usize = ::tensorgraph::__private::LANES;
                        let __tg_v0: ::tensorgraph::__private::V<f32> =
                            ::tensorgraph::__private::load::<f32>(__tg_in0,
                                __tg_off0 + __tg_j, __tg_n);
                        let __tg_v5: ::tensorgraph::__private::V<f32> =
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v0,
                                __tg_v4);
                        let __tg_v6: ::tensorgraph::__private::V<f32> =
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v5,
                                __tg_v5);
                        let __tg_v7: ::tensorgraph::__private::V<f64> =
                            ::tensorgraph::__private::cast::<f32, f64>(__tg_v6);
                        __tg_acc0 =
                            <f64 as
                                    ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc0,
                                __tg_v7);
                        __tg_j += ::tensorgraph::__private::LANES;
                    }
                    let __tg_acc =
                        <f64 as
                                ::tensorgraph::__private::NumLanes>::add_lanes(<f64 as
                                    ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc0,
                                __tg_acc1),
                            <f64 as
                                    ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc2,
                                __tg_acc3));
                    __tg_temp_slice1[__tg_off2] =
                        <f64 as
                                ::tensorgraph::__private::Num>::add(__tg_temp_slice1[__tg_off2],
                            ::tensorgraph::__private::fold(__tg_acc,
                                <f64 as ::tensorgraph::__private::Num>::add));
                }
                {
                    let __tg_temp_slice2: &mut [f32] = &mut __tg_temp2[..];
                    let __tg_i0: usize = __tg_row;
                    let __tg_off0: usize =
                        usize::wrapping_add(0usize,
                            usize::wrapping_mul(__tg_i0, 128));
                    let __tg_off1: usize =
                        usize::wrapping_add(0usize,
                            usize::wrapping_mul(__tg_i0, 1));
                    let mut __tg_acc0 =
                        ::tensorgraph::__private::V::<f32>::splat(<f32 as
                                ::tensorgraph::__private::Identity>::LOWEST);
                    let mut __tg_acc1 =
                        ::tensorgraph::__private::V::<f32>::splat(<f32 as
                                ::tensorgraph::__private::Identity>::LOWEST);
                    let mut __tg_acc2 =
                        ::tensorgraph::__private::V::<f32>::splat(<f32 as
                                ::tensorgraph::__private::Identity>::LOWEST);
                    let mut __tg_acc3 =
                        ::tensorgraph::__private::V::<f32>::splat(<f32 as
                                ::tensorgraph::__private::Identity>::LOWEST);
                    let mut __tg_j: usize = 0;
                    while __tg_j + 4 * ::tensorgraph::__private::LANES <= 128 {
                        {
                            let __tg_j: usize =
                                __tg_j + 0 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            __tg_acc0 =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::max_lanes(__tg_acc0,
                                    __tg_v0);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 1 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            __tg_acc1 =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::max_lanes(__tg_acc1,
                                    __tg_v0);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 2 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            __tg_acc2 =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::max_lanes(__tg_acc2,
                                    __tg_v0);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 3 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            __tg_acc3 =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::max_lanes(__tg_acc3,
                                    __tg_v0);
                        }
                        __tg_j += 4 * ::tensorgraph::__private::LANES;
                    }
                    while __tg_j + ::tensorgraph::__private::LANES <= 128 {
                        let __tg_n: usize = ::tensorgraph::__private::LANES;
                        let __tg_v0: ::tensorgraph::__private::V<f32> =
                            ::tensorgraph::__private::load::<f32>(__tg_in0,
                                __tg_off0 + __tg_j, __tg_n);
                        __tg_acc0 =
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::max_lanes(__tg_acc0,
                                __tg_v0);
                        __tg_j += ::tensorgraph::__private::LANES;
                    }
                    let __tg_acc =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::max_lanes(<f32 as
                                    ::tensorgraph::__private::NumLanes>::max_lanes(__tg_acc0,
                                __tg_acc1),
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::max_lanes(__tg_acc2,
                                __tg_acc3));
                    __tg_temp_slice2[__tg_off1] =
                        <f32 as
                                ::tensorgraph::__private::Num>::max(__tg_temp_slice2[__tg_off1],
                            ::tensorgraph::__private::fold(__tg_acc,
                                <f32 as ::tensorgraph::__private::Num>::max));
                }
                {
                    let __tg_temp_slice0: &[f64] = &__tg_temp0[..];
                    let __tg_temp_slice1: &[f64] = &__tg_temp1[..];
                    let __tg_v2: ::tensorgraph::__private::V<f64> =
                        ::tensorgraph::__private::V::<f64>::splat((128.0f64));
                    let __tg_v7: ::tensorgraph::__private::V<f64> =
                        ::tensorgraph::__private::V::<f64>::splat((128.0f64));
                    let __tg_v10: ::tensorgraph::__private::V<f32> =
                        ::tensorgraph::__private::V::<f32>::splat((7e-6f32));
                    let __tg_i0: usize = __tg_row;
                    let __tg_off0: usize =
                        usize::wrapping_add(0usize,
                            usize::wrapping_mul(__tg_i0, 128));
                    let __tg_off1: usize = 0usize;
                    let __tg_off2: usize = 0usize;
                    let __tg_off3: usize = 0usize;
                    let __tg_off4: usize = 0usize;
                    let __tg_off5: usize =
                        usize::wrapping_add(0usize,
                            usize::wrapping_mul(__tg_i0, 128));
                    let __tg_v1: ::tensorgraph::__private::V<f64> =
                        ::tensorgraph::__private::V::splat(<f64 as
                                    ::tensorgraph::__private::Element>::to_compute(__tg_temp_slice0[__tg_off1]));
                    let __tg_v3: ::tensorgraph::__private::V<f64> =
                        <f64 as
                                ::tensorgraph::__private::NumLanes>::div_lanes(__tg_v1,
                            __tg_v2);
                    let __tg_v4: ::tensorgraph::__private::V<f32> =
                        ::tensorgraph::__private::cast::<f64, f32>(__tg_v3);
                    let __tg_v6: ::tensorgraph::__private::V<f64> =
                        ::tensorgraph::__private::V::splat(<f64 as
                                    ::tensorgraph::__private::Element>::to_compute(__tg_temp_slice1[__tg_off2]));
                    let __tg_v8: ::tensorgraph::__private::V<f64> =
                        <f64 as
                                ::tensorgraph::__private::NumLanes>::div_lanes(__tg_v6,
                            __tg_v7);
                    let __tg_v9: ::tensorgraph::__private::V<f32> =
                        ::tensorgraph::__private::cast::<f64, f32>(__tg_v8);
                    let __tg_v11: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::add_lanes(__tg_v9,
                            __tg_v10);
                    let __tg_v12: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::FloatLanes>::rsqrt_lanes(__tg_v11);
                    let mut __tg_j: usize = 0;
                    while __tg_j + ::tensorgraph::__private::LANES <= 128 {
                        let __tg_n: usize = ::tensorgraph::__private::LANES;
                        let __tg_v0: ::tensorgraph::__private::V<f32> =
                            ::tensorgraph::__private::load::<f32>(__tg_in0,
                                __tg_off0 + __tg_j, __tg_n);
                        let __tg_v5: ::tensorgraph::__private::V<f32> =
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v0,
                                __tg_v4);
                        let __tg_v13: ::tensorgraph::__private::V<f32> =
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v5,
                                __tg_v12);
                        let __tg_v14: ::tensorgraph::__private::V<f32> =
                            ::tensorgraph::__private::load::<f32>(__tg_in1,
                                __tg_off3 + __tg_j, __tg_n);
                        let __tg_v15: ::tensorgraph::__private::V<f32> =
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v13,
                                __tg_v14);
                        let __tg_v16: ::tensorgraph::__private::V<f32> =
                            ::tensorgraph::__private::load::<f32>(__tg_in2,
                                __tg_off4 + __tg_j, __tg_n);
                        let __tg_v17: ::tensorgraph::__private::V<f32> =
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::add_lanes(__tg_v15,
                                __tg_v16);
                        ::tensorgraph::__private::store::<f32>(__tg_out_slice0,
                            __tg_off5 + __tg_j, __tg_n, __tg_v17);
                        __tg_j += ::tensorgraph::__private::LANES;
                    }
                }
            }
        }
        {
            let __tg_temp_slice2: &[f32] = &__tg_temp2[..];
            let __tg_off0: usize = 0usize;
            let __tg_off1: usize = 0usize;
            let mut __tg_j: usize = 0;
            while __tg_j + ::tensorgraph::__private::LANES <= 16 {
                let __tg_n: usize = ::tensorgraph::__private::LANES;
                let __tg_v0: ::tensorgraph::__private::V<f32> =
                    ::tensorgraph::__private::load::<f32>(__tg_temp_slice2,
                        __tg_off0 + __tg_j, __tg_n);
                ::tensorgraph::__private::store::<f32>(__tg_out_slice1,
                    __tg_off1 + __tg_j, __tg_n, __tg_v0);
                __tg_j += ::tensorgraph::__private::LANES;
            }
        }
    }

pub fn k16_6_into(__tg_in0: &[f32], __tg_in1: &[f32], s: f32,
        __tg_out_slice0: &mut [f32]) {
        const _: () =
            if !(::tensorgraph::__private::LANES == 8 ||
                        ::tensorgraph::__private::LANES == 16) {
                {
                    ::core::panic!("tensorgraph's macro and runtime disagree on the lane count");
                }
            };
        {
            let __tg_v1: ::tensorgraph::__private::V<f32> =
                ::tensorgraph::__private::V::<f32>::splat(<f32 as
                            ::tensorgraph::__private::Element>::to_compute(s));
            let __tg_v5: ::tensorgraph::__private::V<f32> =
                ::tensorgraph::__private::V::<f32>::splat((1.5f32));
            let __tg_v14: ::tensorgraph::__private::V<f32> =
                ::tensorgraph::__private::V::<f32>::splat((0.81f32));
            for __tg_i0 in 0..16 {
                let __tg_off0: usize =
                    usize::wrapping_add(0usize,
                        usize::wrapping_mul(__tg_i0, 128));
                let __tg_off1: usize = 0usize;
                let __tg_off2: usize =
                    usize::wrapping_add(0usize,
                        usize::wrapping_mul(__tg_i0, 128));
                let mut __tg_j: usize = 0;
                while __tg_j + ::tensorgraph::__private::LANES <= 128 {
                    let __tg_n: usize = ::tensorgraph::__private::LANES;
                    let __tg_v0: ::tensorgraph::__private::V<f32> =
                        ::tensorgraph::__private::load::<f32>(__tg_in0,
                            __tg_off0 + __tg_j, __tg_n);
                    let __tg_v2: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v0,
                            __tg_v1);
                    let __tg_v3: ::tensorgraph::__private::V<f32> =
                        ::tensorgraph::__private::load::<f32>(__tg_in1,
                            __tg_off1 + __tg_j, __tg_n);
                    let __tg_v4: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::add_lanes(__tg_v2,
                            __tg_v3);
                    let __tg_v6: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v4,
                            __tg_v5);
                    let __tg_v7: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::relu_lanes(__tg_v6);
                    let __tg_v8: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::abs_lanes(__tg_v7);
                    let __tg_v9: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::neg_lanes(__tg_v8);
                    let __tg_v10: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::FloatLanes>::exp_lanes(__tg_v9);
                    let __tg_v11: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v7,
                            __tg_v10);
                    let __tg_v12: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::abs_lanes(__tg_v0);
                    let __tg_v13: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::FloatLanes>::sqrt_lanes(__tg_v12);
                    let __tg_v15: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v13,
                            __tg_v14);
                    let __tg_v16: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::add_lanes(__tg_v11,
                            __tg_v15);
                    ::tensorgraph::__private::store::<f32>(__tg_out_slice0,
                        __tg_off2 + __tg_j, __tg_n, __tg_v16);
                    __tg_j += ::tensorgraph::__private::LANES;
                }
            }
        }
    }
#[inline(never)]
pub fn run_2_6() {
    let mut o = vec![0i32; 2048];
    k2_6_into(&black_box(vec![0i32; 2048]), &black_box(vec![0i32; 128]), &black_box(vec![0i32; 16]), &mut o);
    black_box(o);
}
#[inline(never)]
pub fn run_9_6() {
    let (mut y, mut m) = (vec![0f32; 2048], vec![0f32; 16]);
    k9_6_into(&black_box(vec![0f32; 2048]), &black_box(vec![0f32; 128]), &black_box(vec![0f32; 128]), &mut y, &mut m);
    black_box((y, m));
}
#[inline(never)]
pub fn run_16_6() {
    let mut o = vec![0f32; 2048];
    k16_6_into(&black_box(vec![0f32; 2048]), &black_box(vec![0f32; 128]), black_box(1.5), &mut o);
    black_box(o);
}

pub fn k2_7_into(__tg_in0: &[i32], __tg_in1: &[i32], __tg_in2: &[i32],
        __tg_out_slice0: &mut [i32]) {
        const _: () =
            if !(::tensorgraph::__private::LANES == 8 ||
                        ::tensorgraph::__private::LANES == 16) {
                {
                    ::core::panic!("tensorgraph's macro and runtime disagree on the lane count");
                }
            };
        {
            let __tg_v1: ::tensorgraph::__private::V<i32> =
                ::tensorgraph::__private::V::<i32>::splat((3 as i32));
            let __tg_v5: ::tensorgraph::__private::V<i32> =
                ::tensorgraph::__private::V::<i32>::splat((1 as i32));
            let __tg_v10: ::tensorgraph::__private::V<i32> =
                ::tensorgraph::__private::V::<i32>::splat((21 as i32));
            let __tg_v13: ::tensorgraph::__private::V<i32> =
                ::tensorgraph::__private::V::<i32>::splat((0 as i32));
            for __tg_i0 in 0..16 {
                let __tg_off0: usize =
                    usize::wrapping_add(0usize,
                        usize::wrapping_mul(__tg_i0, 128));
                let __tg_off1: usize = 0usize;
                let __tg_off2: usize =
                    usize::wrapping_add(0usize,
                        usize::wrapping_mul(__tg_i0, 1));
                let __tg_off3: usize =
                    usize::wrapping_add(0usize,
                        usize::wrapping_mul(__tg_i0, 128));
                let __tg_v7: ::tensorgraph::__private::V<i32> =
                    ::tensorgraph::__private::V::splat(<i32 as
                                ::tensorgraph::__private::Element>::to_compute(__tg_in2[__tg_off2]));
                let mut __tg_j: usize = 0;
                while __tg_j + ::tensorgraph::__private::LANES <= 128 {
                    let __tg_n: usize = ::tensorgraph::__private::LANES;
                    let __tg_v0: ::tensorgraph::__private::V<i32> =
                        ::tensorgraph::__private::load::<i32>(__tg_in0,
                            __tg_off0 + __tg_j, __tg_n);
                    let __tg_v2: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v0,
                            __tg_v1);
                    let __tg_v3: ::tensorgraph::__private::V<i32> =
                        ::tensorgraph::__private::load::<i32>(__tg_in1,
                            __tg_off1 + __tg_j, __tg_n);
                    let __tg_v4: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::NumLanes>::add_lanes(__tg_v2,
                            __tg_v3);
                    let __tg_v6: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::ShiftLanes>::shr_lanes(__tg_v4,
                            __tg_v5);
                    let __tg_v8: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::BitwiseLanes>::xor_lanes(__tg_v6,
                            __tg_v7);
                    let __tg_v9: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::NumLanes>::max_lanes(__tg_v8,
                            __tg_v0);
                    let __tg_v11: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::BitwiseLanes>::and_lanes(__tg_v0,
                            __tg_v10);
                    let __tg_v12: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v9,
                            __tg_v11);
                    let __tg_v14: ::tensorgraph::__private::V<bool> =
                        <i32 as
                                ::tensorgraph::__private::CompareLanes>::gt_lanes(__tg_v12,
                            __tg_v13);
                    let __tg_v15: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::NumLanes>::neg_lanes(__tg_v12);
                    let __tg_v16: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::SelectLanes>::select_lanes(__tg_v14,
                            __tg_v12, __tg_v15);
                    let __tg_v17: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::NumLanes>::add_lanes(__tg_v16,
                            __tg_v7);
                    ::tensorgraph::__private::store::<i32>(__tg_out_slice0,
                        __tg_off3 + __tg_j, __tg_n, __tg_v17);
                    __tg_j += ::tensorgraph::__private::LANES;
                }
            }
        }
    }

pub fn k9_7_into(__tg_in0: &[f32], __tg_in1: &[f32], __tg_in2: &[f32],
        __tg_out_slice0: &mut [f32], __tg_out_slice1: &mut [f32]) {
        const _: () =
            if !(::tensorgraph::__private::LANES == 8 ||
                        ::tensorgraph::__private::LANES == 16) {
                {
                    ::core::panic!("tensorgraph's macro and runtime disagree on the lane count");
                }
            };
        let mut __tg_temp2 =
            ::tensorgraph::__private::ScratchVec::<f32>::new(16,
                <f32 as ::tensorgraph::__private::Identity>::LOWEST);
        {
            for __tg_row in 0..16 {
                let mut __tg_temp0: [f64; 1] =
                    [<f64 as ::tensorgraph::__private::Identity>::ZERO; 1];
                let mut __tg_temp1: [f64; 1] =
                    [<f64 as ::tensorgraph::__private::Identity>::ZERO; 1];
                {
                    let __tg_temp_slice0: &mut [f64] = &mut __tg_temp0[..];
                    let __tg_i0: usize = __tg_row;
                    let __tg_off0: usize =
                        usize::wrapping_add(0usize,
                            usize::wrapping_mul(__tg_i0, 128));
                    let __tg_off1: usize = 0usize;
                    ::tensorgraph::__private::prefetch(__tg_in0,
                        usize::wrapping_add(__tg_off0, 128), 128);
                    let mut __tg_acc0 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_acc1 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_acc2 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_acc3 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_j: usize = 0;
                    while __tg_j + 4 * ::tensorgraph::__private::LANES <= 128 {
                        {
                            let __tg_j: usize =
                                __tg_j + 0 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v1: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v0);
                            __tg_acc0 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc0,
                                    __tg_v1);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 1 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v1: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v0);
                            __tg_acc1 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc1,
                                    __tg_v1);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 2 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v1: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v0);
                            __tg_acc2 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc2,
                                    __tg_v1);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 3 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v1: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v0);
                            __tg_acc3 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc3,
                                    __tg_v1);
                        }
                        __tg_j += 4 * ::tensorgraph::__private::LANES;
                    }
                    while __tg_j + ::tensorgraph::__private::LANES <= 128 {
                        let __tg_n: usize = ::tensorgraph::__private::LANES;
                        let __tg_v0: ::tensorgraph::__private::V<f32> =
                            ::tensorgraph::__private::load::<f32>(__tg_in0,
                                __tg_off0 + __tg_j, __tg_n);
                        let __tg_v1: ::tensorgraph::__private::V<f64> =
                            ::tensorgraph::__private::cast::<f32, f64>(__tg_v0);
                        __tg_acc0 =
                            <f64 as
                                    ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc0,
                                __tg_v1);
                        __tg_j += ::tensorgraph::__private::LANES;
                    }
                    let __tg_acc =
                        <f64 as
                                ::tensorgraph::__private::NumLanes>::add_lanes(<f64 as
                                    ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc0,
                                __tg_acc1),
                            <f64 as
                                    ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc2,
                                __tg_acc3));
                    __tg_temp_slice0[__tg_off1] =
                        <f64 as
                                ::tensorgraph::__private::Num>::add(__tg_temp_slice0[__tg_off1],
                            ::tensorgraph::__private::fold(__tg_acc,
                                <f64 as ::tensorgraph::__private::Num>::add));
                }
                {
                    let __tg_temp_slice0: &[f64] = &__tg_temp0[..];
                    let __tg_temp_slice1: &mut [f64] = &mut __tg_temp1[..];
                    let __tg_v2: ::tensorgraph::__private::V<f64> =
                        ::tensorgraph::__private::V::<f64>::splat((128.0f64));
                    let __tg_i0: usize = __tg_row;
                    let __tg_off0: usize =
                        usize::wrapping_add(0usize,
                            usize::wrapping_mul(__tg_i0, 128));
                    let __tg_off1: usize = 0usize;
                    let __tg_off2: usize = 0usize;
                    let __tg_v1: ::tensorgraph::__private::V<f64> =
                        ::tensorgraph::__private::V::splat(<f64 as
                                    ::tensorgraph::__private::Element>::to_compute(__tg_temp_slice0[__tg_off1]));
                    let __tg_v3: ::tensorgraph::__private::V<f64> =
                        <f64 as
                                ::tensorgraph::__private::NumLanes>::div_lanes(__tg_v1,
                            __tg_v2);
                    let __tg_v4: ::tensorgraph::__private::V<f32> =
                        ::tensorgraph::__private::cast::<f64, f32>(__tg_v3);
                    let mut __tg_acc0 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_acc1 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_acc2 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_acc3 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_j: usize = 0;
                    while __tg_j + 4 * ::tensorgraph::__private::LANES <= 128 {
                        {
                            let __tg_j: usize =
                                __tg_j + 0 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v5: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v0,
                                    __tg_v4);
                            let __tg_v6: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v5,
                                    __tg_v5);
                            let __tg_v7: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v6);
                            __tg_acc0 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc0,
                                    __tg_v7);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 1 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v5: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v0,
                                    __tg_v4);
                            let __tg_v6: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v5,
                                    __tg_v5);
                            let __tg_v7: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v6);
                            __tg_acc1 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc1,
                                    __tg_v7);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 2 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v5: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v0,
                                    __tg_v4);
                            let __tg_v6: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v5,
                                    __tg_v5);
                            let __tg_v7: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v6);
                            __tg_acc2 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc2,
                                    __tg_v7);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 3 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v5: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v0,
                                    __tg_v4);
                            let __tg_v6: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v5,
                                    __tg_v5);
                            let __tg_v7: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v6);
                            __tg_acc3 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc3,
                                    __tg_v7);
                        }
                        __tg_j += 4 * ::tensorgraph::__private::LANES;
                    }
                    while __tg_j + ::tensorgraph::__private::LANES <= 128 {
                        let __tg_n: usize = ::tensorgraph::__private::LANES;
                        let __tg_v0: ::tensorgraph::__private::V<f32> =
                            ::tensorgraph::__private::load::<f32>(__tg_in0,
                                __tg_off0 + __tg_j, __tg_n);
                        let __tg_v5: ::tensorgraph::__private::V<f32> =
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v0,
                                __tg_v4);
                        let __tg_v6: ::tensorgraph::__private::V<f32> =
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v5,
                                __tg_v5);
                        let __tg_v7: ::tensorgraph::__private::V<f64> =
                            ::tensorgraph::__private::cast::<f32, f64>(__tg_v6);
                        __tg_acc0 =
                            <f64 as
                                    ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc0,
                                __tg_v7);
                        __tg_j += ::tensorgraph::__private::LANES;
                    }
                    let __tg_acc =
                        <f64 as
                                ::tensorgraph::__private::NumLanes>::add_lanes(<f64 as
                                    ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc0,
                                __tg_acc1),
                            <f64 as
                                    ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc2,
                                __tg_acc3));
                    __tg_temp_slice1[__tg_off2] =
                        <f64 as
                                ::tensorgraph::__private::Num>::add(__tg_temp_slice1[__tg_off2],
                            ::tensorgraph::__private::fold(__tg_acc,
                                <f64 as ::tensorgraph::__private::Num>::add));
                }
                {
                    let __tg_temp_slice2: &mut [f32] = &mut __tg_temp2[..];
                    let __tg_i0: usize = __tg_row;
                    let __tg_off0: usize =
                        usize::wrapping_add(0usize,
                            usize::wrapping_mul(__tg_i0, 128));
                    let __tg_off1: usize =
                        usize::wrapping_add(0usize,
                            usize::wrapping_mul(__tg_i0, 1));
                    let mut __tg_acc0 =
                        ::tensorgraph::__private::V::<f32>::splat(<f32 as
                                ::tensorgraph::__private::Identity>::LOWEST);
                    let mut __tg_acc1 =
                        ::tensorgraph::__private::V::<f32>::splat(<f32 as
                                ::tensorgraph::__private::Identity>::LOWEST);
                    let mut __tg_acc2 =
                        ::tensorgraph::__private::V::<f32>::splat(<f32 as
                                ::tensorgraph::__private::Identity>::LOWEST);
                    let mut __tg_acc3 =
                        ::tensorgraph::__private::V::<f32>::splat(<f32 as
                                ::tensorgraph::__private::Identity>::LOWEST);
                    let mut __tg_j: usize = 0;
                    while __tg_j + 4 * ::tensorgraph::__private::LANES <= 128 {
                        {
                            let __tg_j: usize =
                                __tg_j + 0 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            __tg_acc0 =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::max_lanes(__tg_acc0,
                                    __tg_v0);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 1 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            __tg_acc1 =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::max_lanes(__tg_acc1,
                                    __tg_v0);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 2 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            __tg_acc2 =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::max_lanes(__tg_acc2,
                                    __tg_v0);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 3 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            __tg_acc3 =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::max_lanes(__tg_acc3,
                                    __tg_v0);
                        }
                        __tg_j += 4 * ::tensorgraph::__private::LANES;
                    }
                    while __tg_j + ::tensorgraph::__private::LANES <= 128 {
                        let __tg_n: usize = ::tensorgraph::__private::LANES;
                        let __tg_v0: ::tensorgraph::__private::V<f32> =
                            ::tensorgraph::__private::load::<f32>(__tg_in0,
                                __tg_off0 + __tg_j, __tg_n);
                        __tg_acc0 =
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::max_lanes(__tg_acc0,
                                __tg_v0);
                        __tg_j += ::tensorgraph::__private::LANES;
                    }
                    let __tg_acc =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::max_lanes(<f32 as
                                    ::tensorgraph::__private::NumLanes>::max_lanes(__tg_acc0,
                                __tg_acc1),
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::max_lanes(__tg_acc2,
                                __tg_acc3));
                    __tg_temp_slice2[__tg_off1] =
                        <f32 as
                                ::tensorgraph::__private::Num>::max(__tg_temp_slice2[__tg_off1],
                            ::tensorgraph::__private::fold(__tg_acc,
                                <f32 as ::tensorgraph::__private::Num>::max));
                }
                {
                    let __tg_temp_slice0: &[f64] = &__tg_temp0[..];
                    let __tg_temp_slice1: &[f64] = &__tg_temp1[..];
                    let __tg_v2: ::tensorgraph::__private::V<f64> =
                        ::tensorgraph::__private::V::<f64>::splat((128.0f64));
                    let __tg_v7: ::tensorgraph::__private::V<f64> =
                        ::tensorgraph::__private::V::<f64>::splat((128.0f64));
                    let __tg_v10: ::tensorgraph::__private::V<f32> =
                        ::tensorgraph::__private::V::<f32>::splat((8e-6f32));
                    let __tg_i0: usize = __tg_row;
                    let __tg_off0: usize =
                        usize::wrapping_add(0usize,
                            usize::wrapping_mul(__tg_i0, 128));
                    let __tg_off1: usize = 0usize;
                    let __tg_off2: usize = 0usize;
                    let __tg_off3: usize = 0usize;
                    let __tg_off4: usize = 0usize;
                    let __tg_off5: usize =
                        usize::wrapping_add(0usize,
                            usize::wrapping_mul(__tg_i0, 128));
                    let __tg_v1: ::tensorgraph::__private::V<f64> =
                        ::tensorgraph::__private::V::splat(<f64 as
                                    ::tensorgraph::__private::Element>::to_compute(__tg_temp_slice0[__tg_off1]));
                    let __tg_v3: ::tensorgraph::__private::V<f64> =
                        <f64 as
                                ::tensorgraph::__private::NumLanes>::div_lanes(__tg_v1,
                            __tg_v2);
                    let __tg_v4: ::tensorgraph::__private::V<f32> =
                        ::tensorgraph::__private::cast::<f64, f32>(__tg_v3);
                    let __tg_v6: ::tensorgraph::__private::V<f64> =
                        ::tensorgraph::__private::V::splat(<f64 as
                                    ::tensorgraph::__private::Element>::to_compute(__tg_temp_slice1[__tg_off2]));
                    let __tg_v8: ::tensorgraph::__private::V<f64> =
                        <f64 as
                                ::tensorgraph::__private::NumLanes>::div_lanes(__tg_v6,
                            __tg_v7);
                    let __tg_v9: ::tensorgraph::__private::V<f32> =
                        ::tensorgraph::__private::cast::<f64, f32>(__tg_v8);
                    let __tg_v11: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::add_lanes(__tg_v9,
                            __tg_v10);
                    let __tg_v12: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::FloatLanes>::rsqrt_lanes(__tg_v11);
                    let mut __tg_j: usize = 0;
                    while __tg_j + ::tensorgraph::__private::LANES <= 128 {
                        let __tg_n: usize = ::tensorgraph::__private::LANES;
                        let __tg_v0: ::tensorgraph::__private::V<f32> =
                            ::tensorgraph::__private::load::<f32>(__tg_in0,
                                __tg_off0 + __tg_j, __tg_n);
                        let __tg_v5: ::tensorgraph::__private::V<f32> =
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v0,
                                __tg_v4);
                        let __tg_v13: ::tensorgraph::__private::V<f32> =
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v5,
                                __tg_v12);
                        let __tg_v14: ::tensorgraph::__private::V<f32> =
                            ::tensorgraph::__private::load::<f32>(__tg_in1,
                                __tg_off3 + __tg_j, __tg_n);
                        let __tg_v15: ::tensorgraph::__private::V<f32> =
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v13,
                                __tg_v14);
                        let __tg_v16: ::tensorgraph::__private::V<f32> =
                            ::tensorgraph::__private::load::<f32>(__tg_in2,
                                __tg_off4 + __tg_j, __tg_n);
                        let __tg_v17: ::tensorgraph::__private::V<f32> =
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::add_lanes(__tg_v15,
                                __tg_v16);
                        ::tensorgraph::__private::store::<f32>(__tg_out_slice0,
                            __tg_off5 + __tg_j, __tg_n, __tg_v17);
                        __tg_j += ::tensorgraph::__private::LANES;
                    }
                }
            }
        }
        {
            let __tg_temp_slice2: &[f32] = &__tg_temp2[..];
            let __tg_off0: usize = 0usize;
            let __tg_off1: usize = 0usize;
            let mut __tg_j: usize = 0;
            while __tg_j + ::tensorgraph::__private::LANES <= 16 {
                let __tg_n: usize = ::tensorgraph::__private::LANES;
                let __tg_v0: ::tensorgraph::__private::V<f32> =
                    ::tensorgraph::__private::load::<f32>(__tg_temp_slice2,
                        __tg_off0 + __tg_j, __tg_n);
                ::tensorgraph::__private::store::<f32>(__tg_out_slice1,
                    __tg_off1 + __tg_j, __tg_n, __tg_v0);
                __tg_j += ::tensorgraph::__private::LANES;
            }
        }
    }

pub fn k16_7_into(__tg_in0: &[f32], __tg_in1: &[f32], s: f32,
        __tg_out_slice0: &mut [f32]) {
        const _: () =
            if !(::tensorgraph::__private::LANES == 8 ||
                        ::tensorgraph::__private::LANES == 16) {
                {
                    ::core::panic!("tensorgraph's macro and runtime disagree on the lane count");
                }
            };
        {
            let __tg_v1: ::tensorgraph::__private::V<f32> =
                ::tensorgraph::__private::V::<f32>::splat(<f32 as
                            ::tensorgraph::__private::Element>::to_compute(s));
            let __tg_v5: ::tensorgraph::__private::V<f32> =
                ::tensorgraph::__private::V::<f32>::splat((1.5f32));
            let __tg_v14: ::tensorgraph::__private::V<f32> =
                ::tensorgraph::__private::V::<f32>::splat((0.82f32));
            for __tg_i0 in 0..16 {
                let __tg_off0: usize =
                    usize::wrapping_add(0usize,
                        usize::wrapping_mul(__tg_i0, 128));
                let __tg_off1: usize = 0usize;
                let __tg_off2: usize =
                    usize::wrapping_add(0usize,
                        usize::wrapping_mul(__tg_i0, 128));
                let mut __tg_j: usize = 0;
                while __tg_j + ::tensorgraph::__private::LANES <= 128 {
                    let __tg_n: usize = ::tensorgraph::__private::LANES;
                    let __tg_v0: ::tensorgraph::__private::V<f32> =
                        ::tensorgraph::__private::load::<f32>(__tg_in0,
                            __tg_off0 + __tg_j, __tg_n);
                    let __tg_v2: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v0,
                            __tg_v1);
                    let __tg_v3: ::tensorgraph::__private::V<f32> =
                        ::tensorgraph::__private::load::<f32>(__tg_in1,
                            __tg_off1 + __tg_j, __tg_n);
                    let __tg_v4: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::add_lanes(__tg_v2,
                            __tg_v3);
                    let __tg_v6: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v4,
                            __tg_v5);
                    let __tg_v7: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::relu_lanes(__tg_v6);
                    let __tg_v8: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::abs_lanes(__tg_v7);
                    let __tg_v9: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::neg_lanes(__tg_v8);
                    let __tg_v10: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::FloatLanes>::exp_lanes(__tg_v9);
                    let __tg_v11: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v7,
                            __tg_v10);
                    let __tg_v12: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::abs_lanes(__tg_v0);
                    let __tg_v13: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::FloatLanes>::sqrt_lanes(__tg_v12);
                    let __tg_v15: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v13,
                            __tg_v14);
                    let __tg_v16: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::add_lanes(__tg_v11,
                            __tg_v15);
                    ::tensorgraph::__private::store::<f32>(__tg_out_slice0,
                        __tg_off2 + __tg_j, __tg_n, __tg_v16);
                    __tg_j += ::tensorgraph::__private::LANES;
                }
            }
        }
    }
#[inline(never)]
pub fn run_2_7() {
    let mut o = vec![0i32; 2048];
    k2_7_into(&black_box(vec![0i32; 2048]), &black_box(vec![0i32; 128]), &black_box(vec![0i32; 16]), &mut o);
    black_box(o);
}
#[inline(never)]
pub fn run_9_7() {
    let (mut y, mut m) = (vec![0f32; 2048], vec![0f32; 16]);
    k9_7_into(&black_box(vec![0f32; 2048]), &black_box(vec![0f32; 128]), &black_box(vec![0f32; 128]), &mut y, &mut m);
    black_box((y, m));
}
#[inline(never)]
pub fn run_16_7() {
    let mut o = vec![0f32; 2048];
    k16_7_into(&black_box(vec![0f32; 2048]), &black_box(vec![0f32; 128]), black_box(1.5), &mut o);
    black_box(o);
}

pub fn k2_8_into(__tg_in0: &[i32], __tg_in1: &[i32], __tg_in2: &[i32],
        __tg_out_slice0: &mut [i32]) {
        const _: () =
            if !(::tensorgraph::__private::LANES == 8 ||
                        ::tensorgraph::__private::LANES == 16) {
                {
                    ::core::panic!("tensorgraph's macro and runtime disagree on the lane count");
                }
            };
        {
            let __tg_v1: ::tensorgraph::__private::V<i32> =
                ::tensorgraph::__private::V::<i32>::splat((3 as i32));
            let __tg_v5: ::tensorgraph::__private::V<i32> =
                ::tensorgraph::__private::V::<i32>::splat((1 as i32));
            let __tg_v10: ::tensorgraph::__private::V<i32> =
                ::tensorgraph::__private::V::<i32>::splat((23 as i32));
            let __tg_v13: ::tensorgraph::__private::V<i32> =
                ::tensorgraph::__private::V::<i32>::splat((0 as i32));
            for __tg_i0 in 0..16 {
                let __tg_off0: usize =
                    usize::wrapping_add(0usize,
                        usize::wrapping_mul(__tg_i0, 128));
                let __tg_off1: usize = 0usize;
                let __tg_off2: usize =
                    usize::wrapping_add(0usize,
                        usize::wrapping_mul(__tg_i0, 1));
                let __tg_off3: usize =
                    usize::wrapping_add(0usize,
                        usize::wrapping_mul(__tg_i0, 128));
                let __tg_v7: ::tensorgraph::__private::V<i32> =
                    ::tensorgraph::__private::V::splat(<i32 as
                                ::tensorgraph::__private::Element>::to_compute(__tg_in2[__tg_off2]));
                let mut __tg_j: usize = 0;
                while __tg_j + ::tensorgraph::__private::LANES <= 128 {
                    let __tg_n: usize = ::tensorgraph::__private::LANES;
                    let __tg_v0: ::tensorgraph::__private::V<i32> =
                        ::tensorgraph::__private::load::<i32>(__tg_in0,
                            __tg_off0 + __tg_j, __tg_n);
                    let __tg_v2: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v0,
                            __tg_v1);
                    let __tg_v3: ::tensorgraph::__private::V<i32> =
                        ::tensorgraph::__private::load::<i32>(__tg_in1,
                            __tg_off1 + __tg_j, __tg_n);
                    let __tg_v4: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::NumLanes>::add_lanes(__tg_v2,
                            __tg_v3);
                    let __tg_v6: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::ShiftLanes>::shr_lanes(__tg_v4,
                            __tg_v5);
                    let __tg_v8: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::BitwiseLanes>::xor_lanes(__tg_v6,
                            __tg_v7);
                    let __tg_v9: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::NumLanes>::max_lanes(__tg_v8,
                            __tg_v0);
                    let __tg_v11: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::BitwiseLanes>::and_lanes(__tg_v0,
                            __tg_v10);
                    let __tg_v12: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v9,
                            __tg_v11);
                    let __tg_v14: ::tensorgraph::__private::V<bool> =
                        <i32 as
                                ::tensorgraph::__private::CompareLanes>::gt_lanes(__tg_v12,
                            __tg_v13);
                    let __tg_v15: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::NumLanes>::neg_lanes(__tg_v12);
                    let __tg_v16: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::SelectLanes>::select_lanes(__tg_v14,
                            __tg_v12, __tg_v15);
                    let __tg_v17: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::NumLanes>::add_lanes(__tg_v16,
                            __tg_v7);
                    ::tensorgraph::__private::store::<i32>(__tg_out_slice0,
                        __tg_off3 + __tg_j, __tg_n, __tg_v17);
                    __tg_j += ::tensorgraph::__private::LANES;
                }
            }
        }
    }

pub fn k9_8_into(__tg_in0: &[f32], __tg_in1: &[f32], __tg_in2: &[f32],
        __tg_out_slice0: &mut [f32], __tg_out_slice1: &mut [f32]) {
        const _: () =
            if !(::tensorgraph::__private::LANES == 8 ||
                        ::tensorgraph::__private::LANES == 16) {
                {
                    ::core::panic!("tensorgraph's macro and runtime disagree on the lane count");
                }
            };
        let mut __tg_temp2 =
            ::tensorgraph::__private::ScratchVec::<f32>::new(16,
                <f32 as ::tensorgraph::__private::Identity>::LOWEST);
        {
            for __tg_row in 0..16 {
                let mut __tg_temp0: [f64; 1] =
                    [<f64 as ::tensorgraph::__private::Identity>::ZERO; 1];
                let mut __tg_temp1: [f64; 1] =
                    [<f64 as ::tensorgraph::__private::Identity>::ZERO; 1];
                {
                    let __tg_temp_slice0: &mut [f64] = &mut __tg_temp0[..];
                    let __tg_i0: usize = __tg_row;
                    let __tg_off0: usize =
                        usize::wrapping_add(0usize,
                            usize::wrapping_mul(__tg_i0, 128));
                    let __tg_off1: usize = 0usize;
                    ::tensorgraph::__private::prefetch(__tg_in0,
                        usize::wrapping_add(__tg_off0, 128), 128);
                    let mut __tg_acc0 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_acc1 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_acc2 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_acc3 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_j: usize = 0;
                    while __tg_j + 4 * ::tensorgraph::__private::LANES <= 128 {
                        {
                            let __tg_j: usize =
                                __tg_j + 0 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v1: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v0);
                            __tg_acc0 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc0,
                                    __tg_v1);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 1 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v1: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v0);
                            __tg_acc1 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc1,
                                    __tg_v1);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 2 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v1: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v0);
                            __tg_acc2 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc2,
                                    __tg_v1);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 3 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v1: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v0);
                            __tg_acc3 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc3,
                                    __tg_v1);
                        }
                        __tg_j += 4 * ::tensorgraph::__private::LANES;
                    }
                    while __tg_j + ::tensorgraph::__private::LANES <= 128 {
                        let __tg_n: usize = ::tensorgraph::__private::LANES;
                        let __tg_v0: ::tensorgraph::__private::V<f32> =
                            ::tensorgraph::__private::load::<f32>(__tg_in0,
                                __tg_off0 + __tg_j, __tg_n);
                        let __tg_v1: ::tensorgraph::__private::V<f64> =
                            ::tensorgraph::__private::cast::<f32, f64>(__tg_v0);
                        __tg_acc0 =
                            <f64 as
                                    ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc0,
                                __tg_v1);
                        __tg_j += ::tensorgraph::__private::LANES;
                    }
                    let __tg_acc =
                        <f64 as
                                ::tensorgraph::__private::NumLanes>::add_lanes(<f64 as
                                    ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc0,
                                __tg_acc1),
                            <f64 as
                                    ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc2,
                                __tg_acc3));
                    __tg_temp_slice0[__tg_off1] =
                        <f64 as
                                ::tensorgraph::__private::Num>::add(__tg_temp_slice0[__tg_off1],
                            ::tensorgraph::__private::fold(__tg_acc,
                                <f64 as ::tensorgraph::__private::Num>::add));
                }
                {
                    let __tg_temp_slice0: &[f64] = &__tg_temp0[..];
                    let __tg_temp_slice1: &mut [f64] = &mut __tg_temp1[..];
                    let __tg_v2: ::tensorgraph::__private::V<f64> =
                        ::tensorgraph::__private::V::<f64>::splat((128.0f64));
                    let __tg_i0: usize = __tg_row;
                    let __tg_off0: usize =
                        usize::wrapping_add(0usize,
                            usize::wrapping_mul(__tg_i0, 128));
                    let __tg_off1: usize = 0usize;
                    let __tg_off2: usize = 0usize;
                    let __tg_v1: ::tensorgraph::__private::V<f64> =
                        ::tensorgraph::__private::V::splat(<f64 as
                                    ::tensorgraph::__private::Element>::to_compute(__tg_temp_slice0[__tg_off1]));
                    let __tg_v3: ::tensorgraph::__private::V<f64> =
                        <f64 as
                                ::tensorgraph::__private::NumLanes>::div_lanes(__tg_v1,
                            __tg_v2);
                    let __tg_v4: ::tensorgraph::__private::V<f32> =
                        ::tensorgraph::__private::cast::<f64, f32>(__tg_v3);
                    let mut __tg_acc0 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_acc1 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_acc2 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_acc3 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_j: usize = 0;
                    while __tg_j + 4 * ::tensorgraph::__private::LANES <= 128 {
                        {
                            let __tg_j: usize =
                                __tg_j + 0 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v5: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v0,
                                    __tg_v4);
                            let __tg_v6: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v5,
                                    __tg_v5);
                            let __tg_v7: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v6);
                            __tg_acc0 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc0,
                                    __tg_v7);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 1 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v5: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v0,
                                    __tg_v4);
                            let __tg_v6: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v5,
                                    __tg_v5);
                            let __tg_v7: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v6);
                            __tg_acc1 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc1,
                                    __tg_v7);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 2 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v5: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v0,
                                    __tg_v4);
                            let __tg_v6: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v5,
                                    __tg_v5);
                            let __tg_v7: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v6);
                            __tg_acc2 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc2,
                                    __tg_v7);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 3 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v5: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v0,
                                    __tg_v4);
                            let __tg_v6: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v5,
                                    __tg_v5);
                            let __tg_v7: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v6);
                            __tg_acc3 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc3,
                                    __tg_v7);
                        }
                        __tg_j += 4 * ::tensorgraph::__private::LANES;
                    }
                    while __tg_j + ::tensorgraph::__private::LANES <= 128 {
                        let __tg_n: usize = ::tensorgraph::__private::LANES;
                        let __tg_v0: ::tensorgraph::__private::V<f32> =
                            ::tensorgraph::__private::load::<f32>(__tg_in0,
                                __tg_off0 + __tg_j, __tg_n);
                        let __tg_v5: ::tensorgraph::__private::V<f32> =
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v0,
                                __tg_v4);
                        let __tg_v6: ::tensorgraph::__private::V<f32> =
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v5,
                                __tg_v5);
                        let __tg_v7: ::tensorgraph::__private::V<f64> =
                            ::tensorgraph::__private::cast::<f32, f64>(__tg_v6);
                        __tg_acc0 =
                            <f64 as
                                    ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc0,
                                __tg_v7);
                        __tg_j += ::tensorgraph::__private::LANES;
                    }
                    let __tg_acc =
                        <f64 as
                                ::tensorgraph::__private::NumLanes>::add_lanes(<f64 as
                                    ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc0,
                                __tg_acc1),
                            <f64 as
                                    ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc2,
                                __tg_acc3));
                    __tg_temp_slice1[__tg_off2] =
                        <f64 as
                                ::tensorgraph::__private::Num>::add(__tg_temp_slice1[__tg_off2],
                            ::tensorgraph::__private::fold(__tg_acc,
                                <f64 as ::tensorgraph::__private::Num>::add));
                }
                {
                    let __tg_temp_slice2: &mut [f32] = &mut __tg_temp2[..];
                    let __tg_i0: usize = __tg_row;
                    let __tg_off0: usize =
                        usize::wrapping_add(0usize,
                            usize::wrapping_mul(__tg_i0, 128));
                    let __tg_off1: usize =
                        usize::wrapping_add(0usize,
                            usize::wrapping_mul(__tg_i0, 1));
                    let mut __tg_acc0 =
                        ::tensorgraph::__private::V::<f32>::splat(<f32 as
                                ::tensorgraph::__private::Identity>::LOWEST);
                    let mut __tg_acc1 =
                        ::tensorgraph::__private::V::<f32>::splat(<f32 as
                                ::tensorgraph::__private::Identity>::LOWEST);
                    let mut __tg_acc2 =
                        ::tensorgraph::__private::V::<f32>::splat(<f32 as
                                ::tensorgraph::__private::Identity>::LOWEST);
                    let mut __tg_acc3 =
                        ::tensorgraph::__private::V::<f32>::splat(<f32 as
                                ::tensorgraph::__private::Identity>::LOWEST);
                    let mut __tg_j: usize = 0;
                    while __tg_j + 4 * ::tensorgraph::__private::LANES <= 128 {
                        {
                            let __tg_j: usize =
                                __tg_j + 0 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            __tg_acc0 =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::max_lanes(__tg_acc0,
                                    __tg_v0);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 1 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            __tg_acc1 =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::max_lanes(__tg_acc1,
                                    __tg_v0);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 2 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            __tg_acc2 =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::max_lanes(__tg_acc2,
                                    __tg_v0);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 3 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            __tg_acc3 =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::max_lanes(__tg_acc3,
                                    __tg_v0);
                        }
                        __tg_j += 4 * ::tensorgraph::__private::LANES;
                    }
                    while __tg_j + ::tensorgraph::__private::LANES <= 128 {
                        let __tg_n: usize = ::tensorgraph::__private::LANES;
                        let __tg_v0: ::tensorgraph::__private::V<f32> =
                            ::tensorgraph::__private::load::<f32>(__tg_in0,
                                __tg_off0 + __tg_j, __tg_n);
                        __tg_acc0 =
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::max_lanes(__tg_acc0,
                                __tg_v0);
                        __tg_j += ::tensorgraph::__private::LANES;
                    }
                    let __tg_acc =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::max_lanes(<f32 as
                                    ::tensorgraph::__private::NumLanes>::max_lanes(__tg_acc0,
                                __tg_acc1),
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::max_lanes(__tg_acc2,
                                __tg_acc3));
                    __tg_temp_slice2[__tg_off1] =
                        <f32 as
                                ::tensorgraph::__private::Num>::max(__tg_temp_slice2[__tg_off1],
                            ::tensorgraph::__private::fold(__tg_acc,
                                <f32 as ::tensorgraph::__private::Num>::max));
                }
                {
                    let __tg_temp_slice0: &[f64] = &__tg_temp0[..];
                    let __tg_temp_slice1: &[f64] = &__tg_temp1[..];
                    let __tg_v2: ::tensorgraph::__private::V<f64> =
                        ::tensorgraph::__private::V::<f64>::splat((128.0f64));
                    let __tg_v7: ::tensorgraph::__private::V<f64> =
                        ::tensorgraph::__private::V::<f64>::splat((128.0f64));
                    let __tg_v10: ::tensorgraph::__private::V<f32> =
                        ::tensorgraph::__private::V::<f32>::splat((9e-6f32));
                    let __tg_i0: usize = __tg_row;
                    let __tg_off0: usize =
                        usize::wrapping_add(0usize,
                            usize::wrapping_mul(__tg_i0, 128));
                    let __tg_off1: usize = 0usize;
                    let __tg_off2: usize = 0usize;
                    let __tg_off3: usize = 0usize;
                    let __tg_off4: usize = 0usize;
                    let __tg_off5: usize =
                        usize::wrapping_add(0usize,
                            usize::wrapping_mul(__tg_i0, 128));
                    let __tg_v1: ::tensorgraph::__private::V<f64> =
                        ::tensorgraph::__private::V::splat(<f64 as
                                    ::tensorgraph::__private::Element>::to_compute(__tg_temp_slice0[__tg_off1]));
                    let __tg_v3: ::tensorgraph::__private::V<f64> =
                        <f64 as
                                ::tensorgraph::__private::NumLanes>::div_lanes(__tg_v1,
                            __tg_v2);
                    let __tg_v4: ::tensorgraph::__private::V<f32> =
                        ::tensorgraph::__private::cast::<f64, f32>(__tg_v3);
                    let __tg_v6: ::tensorgraph::__private::V<f64> =
                        ::tensorgraph::__private::V::splat(<f64 as
                                    ::tensorgraph::__private::Element>::to_compute(__tg_temp_slice1[__tg_off2]));
                    let __tg_v8: ::tensorgraph::__private::V<f64> =
                        <f64 as
                                ::tensorgraph::__private::NumLanes>::div_lanes(__tg_v6,
                            __tg_v7);
                    let __tg_v9: ::tensorgraph::__private::V<f32> =
                        ::tensorgraph::__private::cast::<f64, f32>(__tg_v8);
                    let __tg_v11: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::add_lanes(__tg_v9,
                            __tg_v10);
                    let __tg_v12: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::FloatLanes>::rsqrt_lanes(__tg_v11);
                    let mut __tg_j: usize = 0;
                    while __tg_j + ::tensorgraph::__private::LANES <= 128 {
                        let __tg_n: usize = ::tensorgraph::__private::LANES;
                        let __tg_v0: ::tensorgraph::__private::V<f32> =
                            ::tensorgraph::__private::load::<f32>(__tg_in0,
                                __tg_off0 + __tg_j, __tg_n);
                        let __tg_v5: ::tensorgraph::__private::V<f32> =
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v0,
                                __tg_v4);
                        let __tg_v13: ::tensorgraph::__private::V<f32> =
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v5,
                                __tg_v12);
                        let __tg_v14: ::tensorgraph::__private::V<f32> =
                            ::tensorgraph::__private::load::<f32>(__tg_in1,
                                __tg_off3 + __tg_j, __tg_n);
                        let __tg_v15: ::tensorgraph::__private::V<f32> =
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v13,
                                __tg_v14);
                        let __tg_v16: ::tensorgraph::__private::V<f32> =
                            ::tensorgraph::__private::load::<f32>(__tg_in2,
                                __tg_off4 + __tg_j, __tg_n);
                        let __tg_v17: ::tensorgraph::__private::V<f32> =
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::add_lanes(__tg_v15,
                                __tg_v16);
                        ::tensorgraph::__private::store::<f32>(__tg_out_slice0,
                            __tg_off5 + __tg_j, __tg_n, __tg_v17);
                        __tg_j += ::tensorgraph::__private::LANES;
                    }
                }
            }
        }
        {
            let __tg_temp_slice2: &[f32] = &__tg_temp2[..];
            let __tg_off0: usize = 0usize;
            let __tg_off1: usize = 0usize;
            let mut __tg_j: usize = 0;
            while __tg_j + ::tensorgraph::__private::LANES <= 16 {
                let __tg_n: usize = ::tensorgraph::__private::LANES;
                let __tg_v0: ::tensorgraph::__private::V<f32> =
                    ::tensorgraph::__private::load::<f32>(__tg_temp_slice2,
                        __tg_off0 + __tg_j, __tg_n);
                ::tensorgraph::__private::store::<f32>(__tg_out_slice1,
                    __tg_off1 + __tg_j, __tg_n, __tg_v0);
                __tg_j += ::tensorgraph::__private::LANES;
            }
        }
    }

pub fn k16_8_into(__tg_in0: &[f32], __tg_in1: &[f32], s: f32,
        __tg_out_slice0: &mut [f32]) {
        const _: () =
            if !(::tensorgraph::__private::LANES == 8 ||
                        ::tensorgraph::__private::LANES == 16) {
                {
                    ::core::panic!("tensorgraph's macro and runtime disagree on the lane count");
                }
            };
        {
            let __tg_v1: ::tensorgraph::__private::V<f32> =
                ::tensorgraph::__private::V::<f32>::splat(<f32 as
                            ::tensorgraph::__private::Element>::to_compute(s));
            let __tg_v5: ::tensorgraph::__private::V<f32> =
                ::tensorgraph::__private::V::<f32>::splat((1.5f32));
            let __tg_v14: ::tensorgraph::__private::V<f32> =
                ::tensorgraph::__private::V::<f32>::splat((0.83f32));
            for __tg_i0 in 0..16 {
                let __tg_off0: usize =
                    usize::wrapping_add(0usize,
                        usize::wrapping_mul(__tg_i0, 128));
                let __tg_off1: usize = 0usize;
                let __tg_off2: usize =
                    usize::wrapping_add(0usize,
                        usize::wrapping_mul(__tg_i0, 128));
                let mut __tg_j: usize = 0;
                while __tg_j + ::tensorgraph::__private::LANES <= 128 {
                    let __tg_n: usize = ::tensorgraph::__private::LANES;
                    let __tg_v0: ::tensorgraph::__private::V<f32> =
                        ::tensorgraph::__private::load::<f32>(__tg_in0,
                            __tg_off0 + __tg_j, __tg_n);
                    let __tg_v2: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v0,
                            __tg_v1);
                    let __tg_v3: ::tensorgraph::__private::V<f32> =
                        ::tensorgraph::__private::load::<f32>(__tg_in1,
                            __tg_off1 + __tg_j, __tg_n);
                    let __tg_v4: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::add_lanes(__tg_v2,
                            __tg_v3);
                    let __tg_v6: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v4,
                            __tg_v5);
                    let __tg_v7: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::relu_lanes(__tg_v6);
                    let __tg_v8: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::abs_lanes(__tg_v7);
                    let __tg_v9: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::neg_lanes(__tg_v8);
                    let __tg_v10: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::FloatLanes>::exp_lanes(__tg_v9);
                    let __tg_v11: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v7,
                            __tg_v10);
                    let __tg_v12: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::abs_lanes(__tg_v0);
                    let __tg_v13: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::FloatLanes>::sqrt_lanes(__tg_v12);
                    let __tg_v15: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v13,
                            __tg_v14);
                    let __tg_v16: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::add_lanes(__tg_v11,
                            __tg_v15);
                    ::tensorgraph::__private::store::<f32>(__tg_out_slice0,
                        __tg_off2 + __tg_j, __tg_n, __tg_v16);
                    __tg_j += ::tensorgraph::__private::LANES;
                }
            }
        }
    }
#[inline(never)]
pub fn run_2_8() {
    let mut o = vec![0i32; 2048];
    k2_8_into(&black_box(vec![0i32; 2048]), &black_box(vec![0i32; 128]), &black_box(vec![0i32; 16]), &mut o);
    black_box(o);
}
#[inline(never)]
pub fn run_9_8() {
    let (mut y, mut m) = (vec![0f32; 2048], vec![0f32; 16]);
    k9_8_into(&black_box(vec![0f32; 2048]), &black_box(vec![0f32; 128]), &black_box(vec![0f32; 128]), &mut y, &mut m);
    black_box((y, m));
}
#[inline(never)]
pub fn run_16_8() {
    let mut o = vec![0f32; 2048];
    k16_8_into(&black_box(vec![0f32; 2048]), &black_box(vec![0f32; 128]), black_box(1.5), &mut o);
    black_box(o);
}

pub fn k2_9_into(__tg_in0: &[i32], __tg_in1: &[i32], __tg_in2: &[i32],
        __tg_out_slice0: &mut [i32]) {
        const _: () =
            if !(::tensorgraph::__private::LANES == 8 ||
                        ::tensorgraph::__private::LANES == 16) {
                {
                    ::core::panic!("tensorgraph's macro and runtime disagree on the lane count");
                }
            };
        {
            let __tg_v1: ::tensorgraph::__private::V<i32> =
                ::tensorgraph::__private::V::<i32>::splat((3 as i32));
            let __tg_v5: ::tensorgraph::__private::V<i32> =
                ::tensorgraph::__private::V::<i32>::splat((1 as i32));
            let __tg_v10: ::tensorgraph::__private::V<i32> =
                ::tensorgraph::__private::V::<i32>::splat((25 as i32));
            let __tg_v13: ::tensorgraph::__private::V<i32> =
                ::tensorgraph::__private::V::<i32>::splat((0 as i32));
            for __tg_i0 in 0..16 {
                let __tg_off0: usize =
                    usize::wrapping_add(0usize,
                        usize::wrapping_mul(__tg_i0, 128));
                let __tg_off1: usize = 0usize;
                let __tg_off2: usize =
                    usize::wrapping_add(0usize,
                        usize::wrapping_mul(__tg_i0, 1));
                let __tg_off3: usize =
                    usize::wrapping_add(0usize,
                        usize::wrapping_mul(__tg_i0, 128));
                let __tg_v7: ::tensorgraph::__private::V<i32> =
                    ::tensorgraph::__private::V::splat(<i32 as
                                ::tensorgraph::__private::Element>::to_compute(__tg_in2[__tg_off2]));
                let mut __tg_j: usize = 0;
                while __tg_j + ::tensorgraph::__private::LANES <= 128 {
                    let __tg_n: usize = ::tensorgraph::__private::LANES;
                    let __tg_v0: ::tensorgraph::__private::V<i32> =
                        ::tensorgraph::__private::load::<i32>(__tg_in0,
                            __tg_off0 + __tg_j, __tg_n);
                    let __tg_v2: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v0,
                            __tg_v1);
                    let __tg_v3: ::tensorgraph::__private::V<i32> =
                        ::tensorgraph::__private::load::<i32>(__tg_in1,
                            __tg_off1 + __tg_j, __tg_n);
                    let __tg_v4: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::NumLanes>::add_lanes(__tg_v2,
                            __tg_v3);
                    let __tg_v6: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::ShiftLanes>::shr_lanes(__tg_v4,
                            __tg_v5);
                    let __tg_v8: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::BitwiseLanes>::xor_lanes(__tg_v6,
                            __tg_v7);
                    let __tg_v9: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::NumLanes>::max_lanes(__tg_v8,
                            __tg_v0);
                    let __tg_v11: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::BitwiseLanes>::and_lanes(__tg_v0,
                            __tg_v10);
                    let __tg_v12: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v9,
                            __tg_v11);
                    let __tg_v14: ::tensorgraph::__private::V<bool> =
                        <i32 as
                                ::tensorgraph::__private::CompareLanes>::gt_lanes(__tg_v12,
                            __tg_v13);
                    let __tg_v15: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::NumLanes>::neg_lanes(__tg_v12);
                    let __tg_v16: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::SelectLanes>::select_lanes(__tg_v14,
                            __tg_v12, __tg_v15);
                    let __tg_v17: ::tensorgraph::__private::V<i32> =
                        <i32 as
                                ::tensorgraph::__private::NumLanes>::add_lanes(__tg_v16,
                            __tg_v7);
                    ::tensorgraph::__private::store::<i32>(__tg_out_slice0,
                        __tg_off3 + __tg_j, __tg_n, __tg_v17);
                    __tg_j += ::tensorgraph::__private::LANES;
                }
            }
        }
    }

pub fn k9_9_into(__tg_in0: &[f32], __tg_in1: &[f32], __tg_in2: &[f32],
        __tg_out_slice0: &mut [f32], __tg_out_slice1: &mut [f32]) {
        const _: () =
            if !(::tensorgraph::__private::LANES == 8 ||
                        ::tensorgraph::__private::LANES == 16) {
                {
                    ::core::panic!("tensorgraph's macro and runtime disagree on the lane count");
                }
            };
        let mut __tg_temp2 =
            ::tensorgraph::__private::ScratchVec::<f32>::new(16,
                <f32 as ::tensorgraph::__private::Identity>::LOWEST);
        {
            for __tg_row in 0..16 {
                let mut __tg_temp0: [f64; 1] =
                    [<f64 as ::tensorgraph::__private::Identity>::ZERO; 1];
                let mut __tg_temp1: [f64; 1] =
                    [<f64 as ::tensorgraph::__private::Identity>::ZERO; 1];
                {
                    let __tg_temp_slice0: &mut [f64] = &mut __tg_temp0[..];
                    let __tg_i0: usize = __tg_row;
                    let __tg_off0: usize =
                        usize::wrapping_add(0usize,
                            usize::wrapping_mul(__tg_i0, 128));
                    let __tg_off1: usize = 0usize;
                    ::tensorgraph::__private::prefetch(__tg_in0,
                        usize::wrapping_add(__tg_off0, 128), 128);
                    let mut __tg_acc0 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_acc1 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_acc2 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_acc3 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_j: usize = 0;
                    while __tg_j + 4 * ::tensorgraph::__private::LANES <= 128 {
                        {
                            let __tg_j: usize =
                                __tg_j + 0 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v1: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v0);
                            __tg_acc0 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc0,
                                    __tg_v1);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 1 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v1: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v0);
                            __tg_acc1 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc1,
                                    __tg_v1);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 2 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v1: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v0);
                            __tg_acc2 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc2,
                                    __tg_v1);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 3 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v1: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v0);
                            __tg_acc3 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc3,
                                    __tg_v1);
                        }
                        __tg_j += 4 * ::tensorgraph::__private::LANES;
                    }
                    while __tg_j + ::tensorgraph::__private::LANES <= 128 {
                        let __tg_n: usize = ::tensorgraph::__private::LANES;
                        let __tg_v0: ::tensorgraph::__private::V<f32> =
                            ::tensorgraph::__private::load::<f32>(__tg_in0,
                                __tg_off0 + __tg_j, __tg_n);
                        let __tg_v1: ::tensorgraph::__private::V<f64> =
                            ::tensorgraph::__private::cast::<f32, f64>(__tg_v0);
                        __tg_acc0 =
                            <f64 as
                                    ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc0,
                                __tg_v1);
                        __tg_j += ::tensorgraph::__private::LANES;
                    }
                    let __tg_acc =
                        <f64 as
                                ::tensorgraph::__private::NumLanes>::add_lanes(<f64 as
                                    ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc0,
                                __tg_acc1),
                            <f64 as
                                    ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc2,
                                __tg_acc3));
                    __tg_temp_slice0[__tg_off1] =
                        <f64 as
                                ::tensorgraph::__private::Num>::add(__tg_temp_slice0[__tg_off1],
                            ::tensorgraph::__private::fold(__tg_acc,
                                <f64 as ::tensorgraph::__private::Num>::add));
                }
                {
                    let __tg_temp_slice0: &[f64] = &__tg_temp0[..];
                    let __tg_temp_slice1: &mut [f64] = &mut __tg_temp1[..];
                    let __tg_v2: ::tensorgraph::__private::V<f64> =
                        ::tensorgraph::__private::V::<f64>::splat((128.0f64));
                    let __tg_i0: usize = __tg_row;
                    let __tg_off0: usize =
                        usize::wrapping_add(0usize,
                            usize::wrapping_mul(__tg_i0, 128));
                    let __tg_off1: usize = 0usize;
                    let __tg_off2: usize = 0usize;
                    let __tg_v1: ::tensorgraph::__private::V<f64> =
                        ::tensorgraph::__private::V::splat(<f64 as
                                    ::tensorgraph::__private::Element>::to_compute(__tg_temp_slice0[__tg_off1]));
                    let __tg_v3: ::tensorgraph::__private::V<f64> =
                        <f64 as
                                ::tensorgraph::__private::NumLanes>::div_lanes(__tg_v1,
                            __tg_v2);
                    let __tg_v4: ::tensorgraph::__private::V<f32> =
                        ::tensorgraph::__private::cast::<f64, f32>(__tg_v3);
                    let mut __tg_acc0 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_acc1 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_acc2 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_acc3 =
                        ::tensorgraph::__private::V::<f64>::splat(<f64 as
                                ::tensorgraph::__private::Identity>::ZERO);
                    let mut __tg_j: usize = 0;
                    while __tg_j + 4 * ::tensorgraph::__private::LANES <= 128 {
                        {
                            let __tg_j: usize =
                                __tg_j + 0 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v5: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v0,
                                    __tg_v4);
                            let __tg_v6: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v5,
                                    __tg_v5);
                            let __tg_v7: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v6);
                            __tg_acc0 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc0,
                                    __tg_v7);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 1 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v5: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v0,
                                    __tg_v4);
                            let __tg_v6: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v5,
                                    __tg_v5);
                            let __tg_v7: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v6);
                            __tg_acc1 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc1,
                                    __tg_v7);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 2 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v5: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v0,
                                    __tg_v4);
                            let __tg_v6: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v5,
                                    __tg_v5);
                            let __tg_v7: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v6);
                            __tg_acc2 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc2,
                                    __tg_v7);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 3 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            let __tg_v5: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v0,
                                    __tg_v4);
                            let __tg_v6: ::tensorgraph::__private::V<f32> =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v5,
                                    __tg_v5);
                            let __tg_v7: ::tensorgraph::__private::V<f64> =
                                ::tensorgraph::__private::cast::<f32, f64>(__tg_v6);
                            __tg_acc3 =
                                <f64 as
                                        ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc3,
                                    __tg_v7);
                        }
                        __tg_j += 4 * ::tensorgraph::__private::LANES;
                    }
                    while __tg_j + ::tensorgraph::__private::LANES <= 128 {
                        let __tg_n: usize = ::tensorgraph::__private::LANES;
                        let __tg_v0: ::tensorgraph::__private::V<f32> =
                            ::tensorgraph::__private::load::<f32>(__tg_in0,
                                __tg_off0 + __tg_j, __tg_n);
                        let __tg_v5: ::tensorgraph::__private::V<f32> =
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v0,
                                __tg_v4);
                        let __tg_v6: ::tensorgraph::__private::V<f32> =
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v5,
                                __tg_v5);
                        let __tg_v7: ::tensorgraph::__private::V<f64> =
                            ::tensorgraph::__private::cast::<f32, f64>(__tg_v6);
                        __tg_acc0 =
                            <f64 as
                                    ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc0,
                                __tg_v7);
                        __tg_j += ::tensorgraph::__private::LANES;
                    }
                    let __tg_acc =
                        <f64 as
                                ::tensorgraph::__private::NumLanes>::add_lanes(<f64 as
                                    ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc0,
                                __tg_acc1),
                            <f64 as
                                    ::tensorgraph::__private::NumLanes>::add_lanes(__tg_acc2,
                                __tg_acc3));
                    __tg_temp_slice1[__tg_off2] =
                        <f64 as
                                ::tensorgraph::__private::Num>::add(__tg_temp_slice1[__tg_off2],
                            ::tensorgraph::__private::fold(__tg_acc,
                                <f64 as ::tensorgraph::__private::Num>::add));
                }
                {
                    let __tg_temp_slice2: &mut [f32] = &mut __tg_temp2[..];
                    let __tg_i0: usize = __tg_row;
                    let __tg_off0: usize =
                        usize::wrapping_add(0usize,
                            usize::wrapping_mul(__tg_i0, 128));
                    let __tg_off1: usize =
                        usize::wrapping_add(0usize,
                            usize::wrapping_mul(__tg_i0, 1));
                    let mut __tg_acc0 =
                        ::tensorgraph::__private::V::<f32>::splat(<f32 as
                                ::tensorgraph::__private::Identity>::LOWEST);
                    let mut __tg_acc1 =
                        ::tensorgraph::__private::V::<f32>::splat(<f32 as
                                ::tensorgraph::__private::Identity>::LOWEST);
                    let mut __tg_acc2 =
                        ::tensorgraph::__private::V::<f32>::splat(<f32 as
                                ::tensorgraph::__private::Identity>::LOWEST);
                    let mut __tg_acc3 =
                        ::tensorgraph::__private::V::<f32>::splat(<f32 as
                                ::tensorgraph::__private::Identity>::LOWEST);
                    let mut __tg_j: usize = 0;
                    while __tg_j + 4 * ::tensorgraph::__private::LANES <= 128 {
                        {
                            let __tg_j: usize =
                                __tg_j + 0 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            __tg_acc0 =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::max_lanes(__tg_acc0,
                                    __tg_v0);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 1 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            __tg_acc1 =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::max_lanes(__tg_acc1,
                                    __tg_v0);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 2 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            __tg_acc2 =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::max_lanes(__tg_acc2,
                                    __tg_v0);
                        }
                        {
                            let __tg_j: usize =
                                __tg_j + 3 * ::tensorgraph::__private::LANES;
                            let __tg_n: usize = ::tensorgraph::__private::LANES;
                            let __tg_v0: ::tensorgraph::__private::V<f32> =
                                ::tensorgraph::__private::load::<f32>(__tg_in0,
                                    __tg_off0 + __tg_j, __tg_n);
                            __tg_acc3 =
                                <f32 as
                                        ::tensorgraph::__private::NumLanes>::max_lanes(__tg_acc3,
                                    __tg_v0);
                        }
                        __tg_j += 4 * ::tensorgraph::__private::LANES;
                    }
                    while __tg_j + ::tensorgraph::__private::LANES <= 128 {
                        let __tg_n: usize = ::tensorgraph::__private::LANES;
                        let __tg_v0: ::tensorgraph::__private::V<f32> =
                            ::tensorgraph::__private::load::<f32>(__tg_in0,
                                __tg_off0 + __tg_j, __tg_n);
                        __tg_acc0 =
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::max_lanes(__tg_acc0,
                                __tg_v0);
                        __tg_j += ::tensorgraph::__private::LANES;
                    }
                    let __tg_acc =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::max_lanes(<f32 as
                                    ::tensorgraph::__private::NumLanes>::max_lanes(__tg_acc0,
                                __tg_acc1),
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::max_lanes(__tg_acc2,
                                __tg_acc3));
                    __tg_temp_slice2[__tg_off1] =
                        <f32 as
                                ::tensorgraph::__private::Num>::max(__tg_temp_slice2[__tg_off1],
                            ::tensorgraph::__private::fold(__tg_acc,
                                <f32 as ::tensorgraph::__private::Num>::max));
                }
                {
                    let __tg_temp_slice0: &[f64] = &__tg_temp0[..];
                    let __tg_temp_slice1: &[f64] = &__tg_temp1[..];
                    let __tg_v2: ::tensorgraph::__private::V<f64> =
                        ::tensorgraph::__private::V::<f64>::splat((128.0f64));
                    let __tg_v7: ::tensorgraph::__private::V<f64> =
                        ::tensorgraph::__private::V::<f64>::splat((128.0f64));
                    let __tg_v10: ::tensorgraph::__private::V<f32> =
                        ::tensorgraph::__private::V::<f32>::splat((10e-6f32));
                    let __tg_i0: usize = __tg_row;
                    let __tg_off0: usize =
                        usize::wrapping_add(0usize,
                            usize::wrapping_mul(__tg_i0, 128));
                    let __tg_off1: usize = 0usize;
                    let __tg_off2: usize = 0usize;
                    let __tg_off3: usize = 0usize;
                    let __tg_off4: usize = 0usize;
                    let __tg_off5: usize =
                        usize::wrapping_add(0usize,
                            usize::wrapping_mul(__tg_i0, 128));
                    let __tg_v1: ::tensorgraph::__private::V<f64> =
                        ::tensorgraph::__private::V::splat(<f64 as
                                    ::tensorgraph::__private::Element>::to_compute(__tg_temp_slice0[__tg_off1]));
                    let __tg_v3: ::tensorgraph::__private::V<f64> =
                        <f64 as
                                ::tensorgraph::__private::NumLanes>::div_lanes(__tg_v1,
                            __tg_v2);
                    let __tg_v4: ::tensorgraph::__private::V<f32> =
                        ::tensorgraph::__private::cast::<f64, f32>(__tg_v3);
                    let __tg_v6: ::tensorgraph::__private::V<f64> =
                        ::tensorgraph::__private::V::splat(<f64 as
                                    ::tensorgraph::__private::Element>::to_compute(__tg_temp_slice1[__tg_off2]));
                    let __tg_v8: ::tensorgraph::__private::V<f64> =
                        <f64 as
                                ::tensorgraph::__private::NumLanes>::div_lanes(__tg_v6,
                            __tg_v7);
                    let __tg_v9: ::tensorgraph::__private::V<f32> =
                        ::tensorgraph::__private::cast::<f64, f32>(__tg_v8);
                    let __tg_v11: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::add_lanes(__tg_v9,
                            __tg_v10);
                    let __tg_v12: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::FloatLanes>::rsqrt_lanes(__tg_v11);
                    let mut __tg_j: usize = 0;
                    while __tg_j + ::tensorgraph::__private::LANES <= 128 {
                        let __tg_n: usize = ::tensorgraph::__private::LANES;
                        let __tg_v0: ::tensorgraph::__private::V<f32> =
                            ::tensorgraph::__private::load::<f32>(__tg_in0,
                                __tg_off0 + __tg_j, __tg_n);
                        let __tg_v5: ::tensorgraph::__private::V<f32> =
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v0,
                                __tg_v4);
                        let __tg_v13: ::tensorgraph::__private::V<f32> =
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v5,
                                __tg_v12);
                        let __tg_v14: ::tensorgraph::__private::V<f32> =
                            ::tensorgraph::__private::load::<f32>(__tg_in1,
                                __tg_off3 + __tg_j, __tg_n);
                        let __tg_v15: ::tensorgraph::__private::V<f32> =
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v13,
                                __tg_v14);
                        let __tg_v16: ::tensorgraph::__private::V<f32> =
                            ::tensorgraph::__private::load::<f32>(__tg_in2,
                                __tg_off4 + __tg_j, __tg_n);
                        let __tg_v17: ::tensorgraph::__private::V<f32> =
                            <f32 as
                                    ::tensorgraph::__private::NumLanes>::add_lanes(__tg_v15,
                                __tg_v16);
                        ::tensorgraph::__private::store::<f32>(__tg_out_slice0,
                            __tg_off5 + __tg_j, __tg_n, __tg_v17);
                        __tg_j += ::tensorgraph::__private::LANES;
                    }
                }
            }
        }
        {
            let __tg_temp_slice2: &[f32] = &__tg_temp2[..];
            let __tg_off0: usize = 0usize;
            let __tg_off1: usize = 0usize;
            let mut __tg_j: usize = 0;
            while __tg_j + ::tensorgraph::__private::LANES <= 16 {
                let __tg_n: usize = ::tensorgraph::__private::LANES;
                let __tg_v0: ::tensorgraph::__private::V<f32> =
                    ::tensorgraph::__private::load::<f32>(__tg_temp_slice2,
                        __tg_off0 + __tg_j, __tg_n);
                ::tensorgraph::__private::store::<f32>(__tg_out_slice1,
                    __tg_off1 + __tg_j, __tg_n, __tg_v0);
                __tg_j += ::tensorgraph::__private::LANES;
            }
        }
    }

pub fn k16_9_into(__tg_in0: &[f32], __tg_in1: &[f32], s: f32,
        __tg_out_slice0: &mut [f32]) {
        const _: () =
            if !(::tensorgraph::__private::LANES == 8 ||
                        ::tensorgraph::__private::LANES == 16) {
                {
                    ::core::panic!("tensorgraph's macro and runtime disagree on the lane count");
                }
            };
        {
            let __tg_v1: ::tensorgraph::__private::V<f32> =
                ::tensorgraph::__private::V::<f32>::splat(<f32 as
                            ::tensorgraph::__private::Element>::to_compute(s));
            let __tg_v5: ::tensorgraph::__private::V<f32> =
                ::tensorgraph::__private::V::<f32>::splat((1.5f32));
            let __tg_v14: ::tensorgraph::__private::V<f32> =
                ::tensorgraph::__private::V::<f32>::splat((0.84f32));
            for __tg_i0 in 0..16 {
                let __tg_off0: usize =
                    usize::wrapping_add(0usize,
                        usize::wrapping_mul(__tg_i0, 128));
                let __tg_off1: usize = 0usize;
                let __tg_off2: usize =
                    usize::wrapping_add(0usize,
                        usize::wrapping_mul(__tg_i0, 128));
                let mut __tg_j: usize = 0;
                while __tg_j + ::tensorgraph::__private::LANES <= 128 {
                    let __tg_n: usize = ::tensorgraph::__private::LANES;
                    let __tg_v0: ::tensorgraph::__private::V<f32> =
                        ::tensorgraph::__private::load::<f32>(__tg_in0,
                            __tg_off0 + __tg_j, __tg_n);
                    let __tg_v2: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v0,
                            __tg_v1);
                    let __tg_v3: ::tensorgraph::__private::V<f32> =
                        ::tensorgraph::__private::load::<f32>(__tg_in1,
                            __tg_off1 + __tg_j, __tg_n);
                    let __tg_v4: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::add_lanes(__tg_v2,
                            __tg_v3);
                    let __tg_v6: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::sub_lanes(__tg_v4,
                            __tg_v5);
                    let __tg_v7: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::relu_lanes(__tg_v6);
                    let __tg_v8: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::abs_lanes(__tg_v7);
                    let __tg_v9: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::neg_lanes(__tg_v8);
                    let __tg_v10: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::FloatLanes>::exp_lanes(__tg_v9);
                    let __tg_v11: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v7,
                            __tg_v10);
                    let __tg_v12: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::abs_lanes(__tg_v0);
                    let __tg_v13: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::FloatLanes>::sqrt_lanes(__tg_v12);
                    let __tg_v15: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::mul_lanes(__tg_v13,
                            __tg_v14);
                    let __tg_v16: ::tensorgraph::__private::V<f32> =
                        <f32 as
                                ::tensorgraph::__private::NumLanes>::add_lanes(__tg_v11,
                            __tg_v15);
                    ::tensorgraph::__private::store::<f32>(__tg_out_slice0,
                        __tg_off2 + __tg_j, __tg_n, __tg_v16);
                    __tg_j += ::tensorgraph::__private::LANES;
                }
            }
        }
    }
#[inline(never)]
pub fn run_2_9() {
    let mut o = vec![0i32; 2048];
    k2_9_into(&black_box(vec![0i32; 2048]), &black_box(vec![0i32; 128]), &black_box(vec![0i32; 16]), &mut o);
    black_box(o);
}
#[inline(never)]
pub fn run_9_9() {
    let (mut y, mut m) = (vec![0f32; 2048], vec![0f32; 16]);
    k9_9_into(&black_box(vec![0f32; 2048]), &black_box(vec![0f32; 128]), &black_box(vec![0f32; 128]), &mut y, &mut m);
    black_box((y, m));
}
#[inline(never)]
pub fn run_16_9() {
    let mut o = vec![0f32; 2048];
    k16_9_into(&black_box(vec![0f32; 2048]), &black_box(vec![0f32; 128]), black_box(1.5), &mut o);
    black_box(o);
}
