package decl

// RefRE is refRE, for the external tests.
var RefRE = refRE
