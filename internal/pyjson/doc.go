// Package pyjson reads and writes Zarr metadata documents as Python's json
// module does, for package zarr: Node keeps member order and number text,
// so a document zarr-python wrote is written again byte for byte (Dumps,
// Doc), and the bare NaN, Infinity and -Infinity tokens Python writes for
// non-finite float attributes survive a parse (FromPython, ToPython;
// Strict gives standard JSON). It is internal: its API serves zarr's
// metadata code, not users.
package pyjson
