//! libFuzzer entry for [`bastion_fuzz::descriptor`] (its docs state the properties).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| bastion_fuzz::descriptor(data));
