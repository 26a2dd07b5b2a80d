package mod

var windowsOnly int = "a type error only windows sees"
