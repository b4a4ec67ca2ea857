//! libFuzzer entry for [`bastion_fuzz::output_schema`] (its docs state the properties).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| bastion_fuzz::output_schema(data));
