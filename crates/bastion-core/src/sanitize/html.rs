//! OWNER: helper "markup".
