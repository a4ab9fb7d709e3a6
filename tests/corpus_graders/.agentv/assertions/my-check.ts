export default function check() { return { score: 1 }; }
