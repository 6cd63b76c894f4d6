uniform int j, k;
varying vec2 tc;
void main()
{
	for (int i = 0; i < j; i++) {
		if (i > k)
			continue;
		discard;
	}
	gl_FragColor = vec4(0.0, 1.0, 0.0, 0.0);
}
