"""Drop-in APIs of other memory libraries on a Salience mind (`salience.compat.mem0`)."""
