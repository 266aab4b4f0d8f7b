#pragma once

// A switch over a wire enum (ebnccl.v1) that lists every value, so that
// -Wswitch names each switch a value added to the .proto is missing from.
// protoc gives every proto3 enum two sentinel values (<Enum>_INT_MIN_...
// and _INT_MAX_SENTINEL_DO_NOT_USE_) that no message holds; a switch
// without `default:` must list them too, which this does:
//
//   switch (verdict) {
//     case v1::VERDICT_UNFIT: ...
//     ...
//     case v1::VERDICT_UNSPECIFIED:
//     case EB_WIRE_ENUM_SENTINELS(v1::Verdict):
//       break;
//   }
//
// A value from a newer peer that this build does not know matches no case:
// handle it after the switch.

#define EB_WIRE_ENUM_SENTINELS(Enum) \
  Enum##_INT_MIN_SENTINEL_DO_NOT_USE_ : case Enum##_INT_MAX_SENTINEL_DO_NOT_USE_
