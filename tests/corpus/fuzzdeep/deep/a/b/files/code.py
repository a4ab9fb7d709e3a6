print('suite')
