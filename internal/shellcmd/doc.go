// Package shellcmd reads the shell command lines agents run: it splits a
// line into its simple commands and names the program that matters. Error
// signatures and harvested items both ask it, so a command is read one way.
package shellcmd
