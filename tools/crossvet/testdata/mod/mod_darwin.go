package mod

import "fmt"

func darwinOnly() string { return fmt.Sprintf("%d", "a printf mistake only darwin sees") }
